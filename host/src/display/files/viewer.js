// The game viewer: the body of a function of STYLE (its CSS) and WASM_BASE64 (the rules
// crate compiled to WebAssembly, host/viewer-wasm), which the host wraps and calls. A page
// carries each game's setups and moves; the WebAssembly module replays them and gives
// every position in each view, the fights and the captured pieces; this script adds up the
// think times and clocks from the record's and draws. Text from records is always set with
// textContent.
'use strict';

var data = JSON.parse(document.getElementById('data').textContent);
var VIEWS = ['spectator', 'red', 'blue'];
var RANK_NAMES = {
  X: 'Marshal', '9': 'General', '8': 'Colonel', '7': 'Major', '6': 'Captain', '5': 'Lieutenant',
  '4': 'Sergeant', '3': 'Miner', '2': 'Scout', S: 'Spy', B: 'Bomb', F: 'Flag'
};
var SHORT_NAMES = { '5': 'Lieut.', '4': 'Serg.' };
var SIDE = { red: 'Red', blue: 'Blue' };

(function () {
  var style = document.createElement('style');
  style.textContent = STYLE;
  document.head.appendChild(style);
})();

// ---- the rules, in WebAssembly ---------------------------------------------------------

var wasm = null;

// The module's answer for `input` (an object): host/viewer-wasm's `Replayed`.
function replayInWasm(input) {
  var ex = wasm.exports;
  var bytes = new TextEncoder().encode(JSON.stringify(input));
  var ptr = ex.viewer_alloc(bytes.length);
  new Uint8Array(ex.memory.buffer, ptr, bytes.length).set(bytes);
  var out = ex.viewer_replay(ptr, bytes.length);
  ex.viewer_free(ptr, bytes.length);
  // The memory may have grown (a new buffer): views are made after the call.
  var len = new DataView(ex.memory.buffer).getUint32(out, true);
  var text = new TextDecoder().decode(new Uint8Array(ex.memory.buffer, out + 4, len));
  ex.viewer_free(out, len + 4);
  return JSON.parse(text);
}

// Fills in a game's board, plies and states (once): the positions from the module, the
// think times and clocks from the record's times.
function compute(g) {
  if (g.states) return;
  g.plies = [];
  g.states = [];
  g.cells = [];
  g.lakes = [];
  if (!g.setups) return;
  var started = performance.now();
  var r = replayInWasm({ ruleset: g.rules, red: g.setups.red, blue: g.setups.blue, moves: g.moves });
  if (r.error) {
    g.no_board = 'The positions could not be computed: ' + r.error;
    return;
  }
  g.width = r.width;
  g.height = r.height;
  g.cells = r.cells;
  g.lakes = r.lakes;
  var moves = g.moves ? g.moves.split(' ') : [];
  var stalls = {};
  g.stalls.forEach(function (s) { stalls[s[0]] = s[1]; });
  var strikes = {};
  g.strikes.forEach(function (s) { strikes[s.ply] = s; });
  var tc = g.time_control;
  var inc = tc.increment_ms * 1000;
  var think = { red: 0, blue: 0 };
  var left = tc.bank_ms !== null ? { red: tc.bank_ms * 1000, blue: tc.bank_ms * 1000 } : null;
  function withTimes(st) {
    st.think_us = { red: think.red, blue: think.blue };
    st.clock_us = left ? { red: left.red, blue: left.blue } : null;
    return st;
  }
  g.states.push(withTimes(r.states[0]));
  r.plies.forEach(function (p, i) {
    var n = i + 1;
    var t = g.times[i];
    var strike = strikes[n];
    think[p.color] += t;
    // As the host's clock: a move costs its think time and earns the increment; a
    // timeout forgiven under --strikes leaves the increment (at least 1 ms).
    if (left) left[p.color] = strike && strike.timeout ? Math.max(inc, 1000) : Math.max(0, left[p.color] - t) + inc;
    p.move = moves[i];
    p.time_us = t;
    p.stall_us = stalls[n] || 0;
    p.strike = strike ? strike.text : null;
    g.plies.push(p);
    g.states.push(withTimes(r.states[n]));
  });
  // How long the positions took (a look at the rules' speed in this browser).
  document.body.setAttribute('data-compute-ms', (performance.now() - started).toFixed(1));
}

var state = { game: 0, ply: 0, view: 'spectator', timer: null };
var cellEls = [];
var cellKeys = [];
var moveRows = [];
var currentRow = null;
var builtFor = null;

function $(id) { return document.getElementById(id); }

function el(tag, cls, text) {
  var e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}

function fmtTime(us) {
  if (us < 1000) return us + ' \u00b5s';
  if (us < 1000000) return (us / 1000).toFixed(us < 10000 ? 2 : 1) + ' ms';
  return (us / 1000000).toFixed(3) + ' s';
}

function fmtClock(us) {
  var tenths = Math.floor(us / 100000);
  var minutes = Math.floor(tenths / 600);
  var seconds = (tenths % 600) / 10;
  return minutes + ':' + (seconds < 10 ? '0' : '') + seconds.toFixed(1);
}

function game() { return data.games[state.game]; }
function plyCount() { return game().plies.length; }

// ---- the board -------------------------------------------------------------------------

function buildBoard() {
  var g = game();
  var board = $('board');
  var flipped = state.view === 'blue';
  board.replaceChildren();
  board.style.gridTemplateColumns = '20px repeat(' + g.width + ', var(--cell))';
  board.style.gridTemplateRows = 'repeat(' + g.height + ', var(--cell)) 20px';
  cellEls = new Array(g.width * g.height);
  cellKeys = new Array(g.width * g.height);
  var lakes = {};
  g.lakes.forEach(function (i) { lakes[i] = true; });
  var files = [];
  for (var f = 0; f < g.width; f++) files.push(flipped ? g.width - 1 - f : f);
  for (var row = 0; row < g.height; row++) {
    var rank = flipped ? row : g.height - 1 - row;
    board.appendChild(el('div', 'coord', g.cells[rank * g.width].replace(/^[a-z]+/, '')));
    files.forEach(function (file) {
      var i = rank * g.width + file;
      var cell = el('div', 'cell' + ((file + rank) % 2 ? ' alt' : '') + (lakes[i] ? ' lake' : ''));
      cell.setAttribute('data-square', g.cells[i]);
      cell.setAttribute('data-piece', '');
      cellEls[i] = cell;
      board.appendChild(cell);
    });
  }
  board.appendChild(el('div', 'coord'));
  files.forEach(function (file) { board.appendChild(el('div', 'coord', g.cells[file].replace(/[0-9]+$/, ''))); });
  builtFor = state.game + ':' + flipped;
}

function drawBoard(st, ply) {
  var text = st.boards[VIEWS.indexOf(state.view)];
  var last = ply ? game().plies[ply - 1] : null;
  for (var i = 0; i < cellEls.length; i++) {
    var cell = cellEls[i];
    var key = text.substr(3 * i, 3);
    if (cellKeys[i] !== key) {
      cellKeys[i] = key;
      cell.replaceChildren();
      if (key[0] === '.') {
        cell.setAttribute('data-piece', '');
      } else {
        var side = key[0] === 'r' ? 'red' : 'blue';
        var code = key[1];
        var flags = Number(key[2]);
        cell.setAttribute('data-piece', side + ':' + code);
        var piece = el('div', 'piece ' + side + (code === '?' ? ' unknown' : '') +
          (flags & 1 ? ' moved' : '') + (flags & 2 ? ' revealed' : ''));
        piece.title = SIDE[side] + ' ' + (code === '?' ? 'piece, rank unknown' : RANK_NAMES[code]) +
          (flags & 1 ? ', has moved' : '') + (flags & 2 ? ', rank known to the opponent' : '');
        if (code !== '?') {
          piece.appendChild(el('span', null, code));
          piece.appendChild(el('small', null, SHORT_NAMES[code] || RANK_NAMES[code]));
        }
        cell.appendChild(piece);
      }
    }
    cell.classList.toggle('from', !!last && last.from === i);
    cell.classList.toggle('to', !!last && last.to === i);
    cell.classList.toggle('fight', !!last && last.to === i && !!last.combat);
  }
}

// ---- the panels ------------------------------------------------------------------------

function drawPlayer(box, color, st, over) {
  var g = game();
  var bot = g.bots[color];
  box.className = 'player ' + color + (!over && st.to_move === color ? ' to-move' : '');
  box.replaceChildren();
  box.appendChild(el('span', 'swatch'));
  var name = el('span', 'name', bot.name);
  name.title = bot.command;
  box.appendChild(name);
  box.appendChild(el('span', 'think', 'thought ' + fmtTime(st.think_us[color])));
  var clock;
  if (st.clock_us) {
    clock = el('span', 'clock', fmtClock(st.clock_us[color]));
    clock.title = 'bank left' + (g.time_control.increment_ms ? ' (+' + g.time_control.increment_ms / 1000 + ' s a move)' : '');
  } else if (g.time_control.move_ms !== null) {
    clock = el('span', 'clock', (g.time_control.move_ms / 1000).toFixed(3) + ' s/move');
    clock.title = 'limit for each move';
  } else {
    clock = el('span', 'clock', 'no limit');
  }
  box.appendChild(clock);
}

function drawResult(final) {
  var g = game();
  var box = $('result');
  box.className = 'result' + (final ? ' final' : '') + (g.result.winner ? ' win-' + g.result.winner : '');
  box.replaceChildren();
  box.appendChild(el('div', 'headline', g.result.headline));
  box.appendChild(el('div', 'message', g.result.message));
  if (g.result.faulty) box.appendChild(el('div', 'message', 'Fault by ' + SIDE[g.result.faulty] + ' (' + g.bots[g.result.faulty].name + ')'));
}

function sideSpan(color) {
  return el('span', color + '-text', SIDE[color]);
}

function drawDetail(st, ply) {
  var g = game();
  var box = $('ply-detail');
  box.replaceChildren();
  if (ply === 0) {
    var line = el('div', null, 'Start position. ');
    line.appendChild(sideSpan(st.to_move));
    line.appendChild(document.createTextNode(' to move.'));
    box.appendChild(line);
    box.appendChild(el('div', null, g.plies.length + ' plies in this game.'));
    return;
  }
  var p = g.plies[ply - 1];
  var head = el('div', null, 'Ply ' + ply + ': ');
  head.appendChild(sideSpan(p.color));
  head.appendChild(document.createTextNode(' ' + p.move));
  box.appendChild(head);
  if (p.combat) box.appendChild(el('div', null, '\u2694 ' + p.combat.text));
  var t = 'Thought ' + fmtTime(p.time_us);
  if (p.stall_us) t += ' (+' + fmtTime(p.stall_us) + ' of machine stalls, credited)';
  if (g.time_control.move_ms !== null) t += ' of ' + (g.time_control.move_ms / 1000).toFixed(3) + ' s';
  box.appendChild(el('div', null, t + '.'));
  if (p.strike) box.appendChild(el('div', 'strike', 'Strike: ' + p.strike));
  // The mover's info lines sent while it thought on this move (its turn's 0-based ply).
  var b = g.bots[p.color];
  var said = b.info.filter(function (_, i) { return b.info_plies[i] === ply - 1; });
  if (said.length) box.appendChild(el('pre', 'info', said.join('\n')));
  if (ply === g.plies.length) box.appendChild(el('div', null, 'Game over: ' + g.result.headline + '.'));
}

function drawCaptured(st) {
  ['red', 'blue'].forEach(function (color) {
    var box = $('captured-' + color);
    box.replaceChildren();
    var codes = st.captured[color];
    for (var i = 0; i < codes.length; i++) {
      var t = el('span', 'token ' + color, codes[i]);
      t.title = RANK_NAMES[codes[i]];
      box.appendChild(t);
    }
    if (!codes.length) box.appendChild(el('span', 'view-note', 'nothing'));
  });
}

// `7\u00d7X: X wins`: the fight's ranks and its result, as the record gives them.
function shortFight(c) {
  var head = c.attacker + '\u00d7' + c.defender + ': ';
  if (c.result === 'both_removed') return head + 'both removed';
  if (c.result === 'attacker_wins' && c.defender === 'F') return head + 'Flag captured';
  return head + (c.result === 'attacker_wins' ? c.attacker : c.defender) + ' wins';
}

function buildMoves() {
  var g = game();
  var box = $('moves');
  box.replaceChildren();
  moveRows = [];
  currentRow = null;
  var start = el('div', 'move-row start');
  start.appendChild(el('span', 'n', '0.'));
  start.appendChild(el('span', null, 'start position'));
  box.appendChild(start);
  moveRows.push(start);
  g.plies.forEach(function (p, i) {
    var row = el('div', 'move-row');
    row.appendChild(el('span', 'n', (i + 1) + '.'));
    row.appendChild(el('span', 'dot ' + p.color));
    row.appendChild(el('span', 'mv', p.move));
    var fight = el('span', 'fight', p.combat ? shortFight(p.combat) : (p.strike ? '\u26a0 strike' : ''));
    if (p.combat) fight.title = p.combat.text;
    row.appendChild(fight);
    row.appendChild(el('span', 't', fmtTime(p.time_us)));
    box.appendChild(row);
    moveRows.push(row);
  });
  moveRows.forEach(function (row, k) {
    row.setAttribute('data-ply-row', String(k));
    row.addEventListener('click', function () { stop(); go(k); });
  });
}

function highlightMove(ply) {
  if (currentRow) currentRow.classList.remove('current');
  currentRow = moveRows[ply] || null;
  if (!currentRow) return;
  currentRow.classList.add('current');
  var box = $('moves');
  var top = currentRow.offsetTop;
  if (top < box.scrollTop || top + currentRow.offsetHeight > box.scrollTop + box.clientHeight) {
    box.scrollTop = top - box.clientHeight / 2;
  }
}

function addField(dl, name, value) {
  if (value === null || value === undefined || value === '') return;
  dl.appendChild(el('dt', null, name));
  dl.appendChild(el('dd', null, value));
}

function buildAbout() {
  var g = game();
  var box = $('about');
  box.replaceChildren();
  var dl = el('dl');
  addField(dl, 'game', g.id + ' (#' + (g.index + 1) + ' of its run)');
  addField(dl, 'rules', g.ruleset + (g.width ? ', ' + g.width + '\u00d7' + g.height : ''));
  var tc = g.time_control;
  addField(dl, 'time control', (tc.bank_ms !== null ? 'bank ' + tc.bank_ms / 1000 + ' s + ' + tc.increment_ms / 1000 + ' s a move' : 'no bank') +
    (tc.move_ms !== null ? ', at most ' + tc.move_ms / 1000 + ' s a move' : ''));
  // A string in the data: a 64-bit seed does not fit a JavaScript number exactly.
  addField(dl, 'seed', String(g.seed));
  addField(dl, 'started', new Date(g.started_unix_ms).toISOString());
  addField(dl, 'duration', (g.duration_ms / 1000).toFixed(3) + ' s');
  addField(dl, 'host', 'stratego-host ' + g.host_version);
  box.appendChild(dl);
  ['red', 'blue'].forEach(function (color) {
    var b = g.bots[color];
    var h = el('h2');
    h.appendChild(sideSpan(color));
    h.appendChild(document.createTextNode(': ' + b.name));
    box.appendChild(h);
    var d = el('dl');
    addField(d, 'command', b.command);
    addField(d, 'reported', [b.reported_name, b.version, b.author ? 'by ' + b.author : null].filter(Boolean).join(' '));
    addField(d, 'think time', fmtTime(b.think_us));
    if (b.clock_ms !== null) addField(d, 'bank left', fmtClock(b.clock_ms * 1000));
    if (b.strikes) addField(d, 'strikes', String(b.strikes));
    addField(d, 'process', b.process_note);
    addField(d, 'exit', b.exit);
    box.appendChild(d);
    if (b.info.length) {
      box.appendChild(el('div', null, 'info lines' +
        (b.info_dropped ? ' (the first and last 100; ' + b.info_dropped + ' between them not kept)' : '')));
      box.appendChild(el('pre', null, b.info.join('\n')));
    }
    if (b.stderr_tail) {
      box.appendChild(el('div', null, 'stderr (end)'));
      box.appendChild(el('pre', null, b.stderr_tail));
    }
  });
}

// ---- state changes ---------------------------------------------------------------------

function render() {
  var g = game();
  var hasBoard = g.states.length > 0;
  $('board-area').hidden = !hasBoard;
  $('no-board').hidden = hasBoard;
  var n = plyCount();
  if (!hasBoard) {
    $('no-board').textContent = g.no_board || 'No board.';
    drawResult(true);
    $('ply-detail').replaceChildren(el('div', null, g.bots.red.name + ' (Red) vs ' + g.bots.blue.name + ' (Blue)'));
    $('moves').replaceChildren();
    drawCaptured({ captured: { red: '', blue: '' } });
    updateHash();
    return;
  }
  var flipped = state.view === 'blue';
  if (builtFor !== state.game + ':' + flipped) buildBoard();
  var st = g.states[state.ply];
  drawBoard(st, state.ply);
  var over = state.ply === n;
  drawPlayer($('player-top'), flipped ? 'red' : 'blue', st, over);
  drawPlayer($('player-bottom'), flipped ? 'blue' : 'red', st, over);
  var label = $('ply-label');
  label.textContent = state.ply + ' / ' + n;
  label.setAttribute('data-ply', String(state.ply));
  var slider = $('slider');
  slider.max = String(n);
  slider.value = String(state.ply);
  VIEWS.forEach(function (v) { $('view-' + v).classList.toggle('active', v === state.view); });
  var note = state.view === 'spectator' ? 'every rank shown'
    : 'what ' + g.bots[state.view].name + ' (' + SIDE[state.view] + ') was told: opponent ranks only once revealed';
  $('view-note').textContent = note;
  drawResult(over);
  drawDetail(st, state.ply);
  drawCaptured(st);
  highlightMove(state.ply);
  updateHash();
}

function go(ply) {
  state.ply = Math.max(0, Math.min(plyCount(), ply));
  render();
}

function stop() {
  if (state.timer !== null) clearInterval(state.timer);
  state.timer = null;
  $('play').textContent = '\u25b6 Play';
}

function play() {
  if (state.timer !== null) { stop(); return; }
  if (state.ply >= plyCount()) go(0);
  $('play').textContent = '|| Pause';
  state.timer = setInterval(function () {
    if (state.ply >= plyCount()) { stop(); return; }
    go(state.ply + 1);
  }, Number($('speed').value));
}

function selectGame(i) {
  stop();
  state.game = Math.max(0, Math.min(data.games.length - 1, i));
  compute(game());
  state.ply = 0;
  builtFor = null;
  $('game-select').value = String(state.game);
  buildMoves();
  buildAbout();
  render();
}

function setView(v) {
  state.view = v;
  render();
}

function updateHash() {
  try {
    var h = '#game=' + encodeURIComponent(game().id) + '&ply=' + state.ply + '&view=' + state.view;
    if (location.hash !== h) history.replaceState(null, '', h);
  } catch (e) { /* some file: URLs refuse replaceState; the fragment is a convenience */ }
}

function readHash() {
  var params = {};
  location.hash.replace(/^#/, '').split('&').forEach(function (kv) {
    var i = kv.indexOf('=');
    if (i > 0) params[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1));
  });
  return params;
}

// ---- start -----------------------------------------------------------------------------

var select = $('game-select');
data.games.forEach(function (g, i) {
  var o = el('option', null, (i + 1) + '. ' + g.bots.red.name + ' vs ' + g.bots.blue.name + ' \u2014 ' + g.result.headline + ' (' + g.id + ')');
  o.value = String(i);
  select.appendChild(o);
});
$('game-picker').hidden = data.games.length < 2;
select.addEventListener('change', function () { selectGame(Number(select.value)); });
$('first').addEventListener('click', function () { stop(); go(0); });
$('prev').addEventListener('click', function () { stop(); go(state.ply - 1); });
$('next').addEventListener('click', function () { stop(); go(state.ply + 1); });
$('last').addEventListener('click', function () { stop(); go(plyCount()); });
$('play').addEventListener('click', play);
$('slider').addEventListener('input', function () { stop(); go(Number($('slider').value)); });
$('speed').addEventListener('change', function () { if (state.timer !== null) { stop(); play(); } });
VIEWS.forEach(function (v) { $('view-' + v).addEventListener('click', function () { setView(v); }); });
document.addEventListener('keydown', function (e) {
  var tag = e.target && e.target.tagName;
  if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA' || e.altKey || e.ctrlKey || e.metaKey) return;
  if (e.key === 'ArrowRight') { stop(); go(state.ply + 1); } else if (e.key === 'ArrowLeft') { stop(); go(state.ply - 1); } else if (e.key === 'Home') { stop(); go(0); } else if (e.key === 'End') { stop(); go(plyCount()); } else if (e.key === ' ') { play(); } else { return; }
  e.preventDefault();
});

function begin() {
  var wanted = readHash();
  var start = 0;
  data.games.forEach(function (g, i) { if (g.id === wanted.game) start = i; });
  if (VIEWS.indexOf(wanted.view) >= 0) state.view = wanted.view;
  selectGame(start);
  if (wanted.ply) go(Number(wanted.ply) || 0);
  document.body.setAttribute('data-ready', '1');
}

var wasmBytes = Uint8Array.from(atob(WASM_BASE64), function (c) { return c.charCodeAt(0); });
WebAssembly.instantiate(wasmBytes, {}).then(function (m) {
  wasm = m.instance;
  document.body.setAttribute('data-engine', 'wasm');
  begin();
}, function (e) {
  var box = $('no-board');
  box.hidden = false;
  box.textContent = 'This browser cannot run the viewer\'s rules (WebAssembly): ' + e;
  $('board-area').hidden = true;
  throw e;
});
