// Watches the live page of a running event (`--serve`) in headless Chromium.
//
//   node live.mjs --url http://127.0.0.1:PORT/ --open-first GATE1 --open-last GATE2
//                 [--ply N] [--screenshot OUT.png] [--delay D]
//   node live.mjs --url http://127.0.0.1:PORT/ --remote-gate GATE
//
// It opens the page and waits for its first snapshot, reads the standings, then creates the
// file GATE1 (the test's bots wait for it before their first move, so no game can finish
// before the page is watching). Then it reads the page every 40 ms: each live board (its
// game, the ply shown, the plies played and every square's data-piece), the standings and
// the finished games, until it has seen a board advance, a game finish and the standings
// change (and, with --delay D, a board with at least D plies played), taking a screenshot
// then. It follows the first finished game's link, steps its viewer to ply N and reads the
// board in each view. Last it creates GATE2 (the test's other bots wait for it: the event
// cannot end while the page is watched). Each read also has the page's data-engine (`wasm`
// once the rules module runs) and data-resyncs (fresh snapshots it had to ask for).
//
// With --remote-gate, it opens the page and waits until its remote bots' table shows a bot
// connected with at least one move, reads the table's rows, and creates GATE (the test's
// remote bot waits for it).
//
// It prints one JSON object on stdout; exit status 0
// when the page was driven (the caller judges the content), 2 on a failure, 3 when Chromium
// is missing.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { Cdp, openPage, startChromium, stopChromium, wsConnect } from './cdp.mjs';

function parseArgs(argv) {
  const args = { ply: '6', screenshot: null, delay: '0' };
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith('--') || argv[i + 1] === undefined) throw new Error(`bad argument ${argv[i]}`);
    args[argv[i].slice(2)] = argv[i + 1];
  }
  const needed = args['remote-gate'] ? ['url'] : ['url', 'open-first', 'open-last'];
  for (const a of needed) if (!args[a]) throw new Error(`--${a} is required`);
  return args;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function watch(args, cdp) {
  const { s, evaluate, problems } = await openPage(cdp, { width: 1360, height: 900 });
  const waitReady = async (what) => {
    const until = Date.now() + 15000;
    while ((await evaluate(`document.body ? document.body.getAttribute('data-ready') : null`).catch(() => null)) !== '1') {
      if (Date.now() > until) throw new Error(`${what} did not get ready: ${JSON.stringify(problems)}`);
      await sleep(40);
    }
  };

  await s('Page.navigate', { url: args.url });
  await waitReady('the live page');
  if (args['remote-gate']) return watchRemote(args, evaluate, problems);
  // One read of the page: everything in one evaluation, so it is one consistent state.
  const read = () =>
    evaluate(`({
      engine: document.body.getAttribute('data-engine'),
      resyncs: document.body.getAttribute('data-resyncs'),
      standings: document.querySelector('#standings').textContent,
      status: document.querySelector('#status').textContent,
      finished: [...document.querySelectorAll('#finished tbody tr')].map((r) => ({
        id: r.querySelector('a').textContent, href: r.querySelector('a').href })),
      games: [...document.querySelectorAll('#live .game')].filter((g) => !g.querySelector('.board').hidden).map((g) => ({
        id: g.getAttribute('data-game'),
        shown: Number(g.getAttribute('data-shown')),
        played: Number(g.getAttribute('data-played')),
        ply_text: g.querySelector('.ply').textContent,
        board: Object.fromEntries([...g.querySelectorAll('[data-square]')].map((c) => [c.getAttribute('data-square'), c.getAttribute('data-piece')])),
      })),
    })`);
  const first = await read();
  const out = { problems, first_standings: first.standings, first_finished: first.finished.length, samples: [] };
  fs.writeFileSync(args['open-first'], 'go\n');

  const seen = new Set();
  const shownBy = new Map();
  const delay = Number(args.delay);
  let last = first;
  let shot = false;
  const until = Date.now() + 45000;
  for (;;) {
    last = await read();
    for (const g of last.games) {
      const key = `${g.id}@${g.shown}`;
      if (!seen.has(key)) {
        seen.add(key);
        out.samples.push(g);
      }
      const plies = shownBy.get(g.id) || new Set();
      plies.add(g.shown);
      shownBy.set(g.id, plies);
    }
    const advanced = [...shownBy.values()].some((p) => p.size >= 2);
    const finished = last.finished.length > 0;
    const changed = last.standings !== first.standings;
    const delayed = delay === 0 || out.samples.some((g) => g.played >= delay);
    if (args.screenshot && !shot && finished && last.games.some((g) => g.shown > 0)) {
      const png = await s('Page.captureScreenshot', { format: 'png' });
      fs.writeFileSync(args.screenshot, Buffer.from(png.data, 'base64'));
      shot = true;
    }
    if (advanced && finished && changed && delayed && (shot || !args.screenshot)) break;
    if (Date.now() > until) {
      throw new Error(`gave up watching: advanced ${advanced}, finished ${finished}, standings changed ${changed}, delayed ${delayed}; last read ${JSON.stringify({ ...last, games: last.games.map((g) => [g.id, g.shown, g.played]) })} ${JSON.stringify(problems)}`);
    }
    await sleep(40);
  }
  out.last_standings = last.standings;
  out.status = last.status;
  out.engine = last.engine;
  out.resyncs = last.resyncs;

  // A finished game opens in the viewer, in every view: the first whose page is served (a
  // page is held back, 403, while the other game of its pair runs).
  let game = null;
  const pageUntil = Date.now() + 30000;
  while (!game) {
    const rows = (await read()).finished.reverse();
    for (const row of rows) {
      if ((await evaluate(`fetch(${JSON.stringify(row.href)}).then((r) => r.status)`)) === 200) {
        game = row;
        break;
      }
    }
    if (!game) {
      if (Date.now() > pageUntil) throw new Error(`no finished game's page was served: ${JSON.stringify(rows)}`);
      await sleep(100);
    }
  }
  out.viewer = { id: game.id, href: game.href, boards: {} };
  await s('Page.navigate', { url: game.href });
  await waitReady('the viewer page');
  const ply = Number(args.ply);
  for (let i = 0; i < ply; i++) await evaluate(`document.querySelector('#next').click()`);
  out.viewer.ply = await evaluate(`Number(document.querySelector('#ply-label').getAttribute('data-ply'))`);
  for (const view of ['spectator', 'red', 'blue']) {
    await evaluate(`document.querySelector('#view-${view}').click()`);
    out.viewer.boards[view] = await evaluate(
      `Object.fromEntries([...document.querySelectorAll('[data-square]')].map((c) => [c.getAttribute('data-square'), c.getAttribute('data-piece')]))`,
    );
  }
  return out;
}

// Waits for the remote bots' table to show a connected bot that has moved; its rows.
async function watchRemote(args, evaluate, problems) {
  const read = () =>
    evaluate(`[...document.querySelectorAll('#remote-table tbody tr')].map((r) => ({
      bot: r.getAttribute('data-bot'),
      connected: r.getAttribute('data-connected'),
      cells: [...r.querySelectorAll('td')].map((c) => c.textContent),
    }))`);
  const until = Date.now() + 45000;
  let rows = await read();
  while (!rows.some((r) => r.connected === '1' && Number(r.cells[5]) > 0)) {
    if (Date.now() > until) throw new Error(`no connected remote bot with moves: ${JSON.stringify(rows)} ${JSON.stringify(problems)}`);
    await sleep(40);
    rows = await read();
  }
  const headers = await evaluate(`[...document.querySelectorAll('#remote-table th')].map((c) => c.textContent)`);
  fs.writeFileSync(args['remote-gate'], 'go\n');
  return { problems, headers, rows };
}

async function main() {
  const started = Date.now();
  const args = parseArgs(process.argv.slice(2));
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'live-chromium-'));
  const chromium = startChromium(userDir);
  const timer = setTimeout(async () => {
    process.stderr.write(`live.mjs: gave up after 60 s\n${chromium.stderr()}\n`);
    for (const gate of ['open-first', 'open-last', 'remote-gate']) if (args[gate]) fs.writeFileSync(args[gate], 'go\n');
    await stopChromium(chromium.child);
    fs.rmSync(userDir, { recursive: true, force: true });
    process.exit(2);
  }, 60000);
  let status = 0;
  try {
    const ws = await wsConnect(await chromium.url);
    const cdp = new Cdp(ws);
    const out = await watch(args, cdp);
    out.elapsed_ms = Date.now() - started;
    process.stdout.write(JSON.stringify(out) + '\n');
    await cdp.send('Browser.close').catch(() => {});
    ws.close();
  } catch (e) {
    process.stderr.write(`live.mjs: ${e.message}\n`);
    status = e.missing ? 3 : 2;
  }
  // Whatever happened, the event may end now.
  for (const gate of ['open-first', 'open-last', 'remote-gate']) if (args[gate]) fs.writeFileSync(args[gate], 'go\n');
  clearTimeout(timer);
  await stopChromium(chromium.child);
  fs.rmSync(userDir, { recursive: true, force: true });
  process.exit(status);
}

main();
