#!/usr/bin/env node
// A complete Stratego bot for stratego-host, in plain Node.js (no npm packages).
//
// Run it against the sample bot:
//     stratego-host match "node examples/javascript/bot.js" sample-bot
//
// The host writes one JSON object per line to our stdin; we answer with one JSON object
// per line on stdout (see protocol.md). Logs go to stderr.
'use strict';
const readline = require('readline');

const STRENGTH = { spy: 1, scout: 2, miner: 3, sergeant: 4, lieutenant: 5,
  captain: 6, major: 7, colonel: 8, general: 9, marshal: 10 };

// A small seeded generator (mulberry32), so the same seed plays the same game.
function makeRng(seed) {
  let a = Number(BigInt.asUintN(32, BigInt(seed)));
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function send(msg) {
  // One line per message. process.stdout.write on a pipe is asynchronous but ordered.
  process.stdout.write(JSON.stringify(msg) + '\n');
}

function shuffle(items, rng) {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

function makeSetup(request, rng) {
  const squares = request.squares.slice();
  const rankOf = (sq) => parseInt(sq.slice(1), 10);
  const back = request.color === 'red'
    ? Math.min(...squares.map(rankOf)) : Math.max(...squares.map(rankOf));
  const army = [];
  for (const [rank, n] of Object.entries(request.pieces)) {
    for (let i = 0; i < n; i++) army.push(rank);
  }
  const placed = new Map();
  const backRow = squares.filter((sq) => rankOf(sq) === back);
  if (army.includes('flag')) {
    const flag = backRow[Math.floor(rng() * backRow.length)];
    placed.set(flag, 'flag');
    army.splice(army.indexOf('flag'), 1);
    const f = flag.charCodeAt(0);
    const r = rankOf(flag);
    const front = request.color === 'red' ? r + 1 : r - 1;
    for (const sq of [String.fromCharCode(f - 1) + r, String.fromCharCode(f + 1) + r, flag[0] + front]) {
      if (squares.includes(sq) && !placed.has(sq) && army.includes('bomb')) {
        placed.set(sq, 'bomb');
        army.splice(army.indexOf('bomb'), 1);
      }
    }
  }
  const free = shuffle(squares.filter((sq) => !placed.has(sq)), rng);
  shuffle(army, rng);
  army.forEach((rank, i) => { if (i < free.length) placed.set(free[i], rank); });
  // Pairs form: "a1=flag b1=bomb ...".
  return [...placed].map(([sq, rank]) => `${sq}=${rank}`).join(' ');
}

function fightValue(mine, theirs) {
  if (theirs === undefined) return 0;           // unknown: not revealed yet
  if (theirs === 'flag') return 2;
  if (theirs === 'bomb') return mine === 'miner' ? 1 : -1;
  if (mine === 'spy' && theirs === 'marshal') return 1;
  return Math.sign(STRENGTH[mine] - STRENGTH[theirs]);
}

function chooseMove(turn, rng) {
  const board = new Map(turn.pieces.map((p) => [p.square, p]));
  const forward = turn.color === 'red' ? 1 : -1;
  let best = null;
  let bestScore = -Infinity;
  for (const move of turn.legal_moves) {         // never empty, all legal
    const [src, dst] = move.split('-');
    const mine = board.get(src).rank;            // our pieces always carry their rank
    const target = board.get(dst);
    let score = rng();
    if (target) {
      let v = fightValue(mine, target.rank);     // opponent rank only once revealed
      if (target.rank === undefined) {
        v = (STRENGTH[mine] || 0) >= 7 ? -0.5 : 0.2;
        if (!target.moved && mine !== 'miner') v -= 0.3;   // unmoved: maybe a bomb
      }
      score += 10 * v;
    } else {
      score += forward * (parseInt(dst.slice(1), 10) - parseInt(src.slice(1), 10));
    }
    if (score > bestScore) { best = move; bestScore = score; }
  }
  return best;
}

let rng = makeRng(1);
const rl = readline.createInterface({ input: process.stdin, terminal: false });
rl.on('line', (line) => {
  const msg = JSON.parse(line);
  switch (msg.type) {
    case 'hello':
      // The seed can exceed 2^53: JSON.parse rounds it, which is fine for seeding.
      rng = makeRng(msg.seed);
      send({ type: 'ready', name: 'javascript-example', version: '1', multi_game: true });
      break;
    case 'setup_request':
      send({ type: 'setup', deployment: makeSetup(msg, rng) });
      break;
    case 'turn':
      send({ type: 'move', move: chooseMove(msg, rng) });
      break;
    case 'game_over':
      console.error(`game over: ${msg.result} (${msg.reason})`);
      break;
    case 'quit':
      rl.close();
      process.exit(0);
      break;
    default:
      break;                                     // unknown types from a newer host: ignore
  }
});
