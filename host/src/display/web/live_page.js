// The live page of a running event. Everything it shows comes from the host's event stream
// (/events): a snapshot, then deltas. A running game comes as the spectator's board (which
// side owns each square, and the ranks made public), then as its plies (the move, and for a
// fight the two ranks it reveals); the rules crate compiled to WebAssembly (/viewer.wasm,
// host/viewer-wasm's live boards) applies them, so this script holds no rules of its own
// and only draws. Text from the event (bot names, messages) is always set with
// textContent; only the standings arrive as HTML, which the host escaped.
(function () {
  'use strict';

  var page = { width: 10, height: 10, squares: [], lakes: {}, games: {}, delay: 0, done: 0, planned: null, over: false };
  var resyncs = 0;

  // ---- the rules, in WebAssembly ----------------------------------------------------------

  var wasm = null;

  // Calls the module's `name` with JSON `input` (after `handle`, when given): its answer.
  function callWasm(name, handle, input) {
    var ex = wasm.exports;
    var bytes = new TextEncoder().encode(JSON.stringify(input));
    var ptr = ex.viewer_alloc(bytes.length);
    new Uint8Array(ex.memory.buffer, ptr, bytes.length).set(bytes);
    var out = handle === null ? ex[name](ptr, bytes.length) : ex[name](handle, ptr, bytes.length);
    ex.viewer_free(ptr, bytes.length);
    // The memory may have grown (a new buffer): views are made after the call.
    var len = new DataView(ex.memory.buffer).getUint32(out, true);
    var text = new TextDecoder().decode(new Uint8Array(ex.memory.buffer, out + 4, len));
    ex.viewer_free(out, len + 4);
    return JSON.parse(text);
  }

  function dropBoard(v) {
    if (v && v.handle) wasm.exports.viewer_live_drop(v.handle);
    if (v) v.handle = 0;
  }

  function $(id) { return document.getElementById(id); }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function fmtUs(us) {
    if (us < 1000) return us + ' \u00b5s';
    if (us < 1000000) return (us / 1000).toFixed(1) + ' ms';
    return (us / 1000000).toFixed(2) + ' s';
  }

  function fmtClock(us) {
    var neg = us < 0;
    us = Math.abs(us);
    var tenths = Math.floor(us / 100000);
    var minutes = Math.floor(tenths / 600);
    var seconds = (tenths % 600) / 10;
    return (neg ? '-' : '') + minutes + ':' + (seconds < 10 ? '0' : '') + seconds.toFixed(1);
  }

  // A side's clock: the bank left (with --tc) or the limit a move, and its last think time;
  // on small boards (squares under 24 px) only the bank or the last think time.
  function clockText(c) {
    if (!c) return '';
    var small = Number(document.body.getAttribute('data-cell') || 30) < 24;
    var parts = [];
    if (c.bank_us !== null && c.bank_us !== undefined) parts.push((small ? '' : 'bank ') + fmtClock(c.bank_us));
    else if (c.move_ms && !small) parts.push(fmtUs(c.move_ms * 1000) + '/move');
    if (!small || !parts.length) parts.push('last ' + fmtUs(c.last_us));
    return parts.join(', ');
  }

  function status() {
    var running = Object.keys(page.games).length;
    var of = page.planned ? ' of ' + page.planned : '';
    var s = $('status');
    s.textContent = page.done + of + (page.planned === 1 ? ' game' : ' games') + ' finished, ' + running + ' running' +
      (page.over ? ' \u2014 the event is over' : '');
    s.className = 'status' + (page.over ? ' over' : '');
    $('no-games').hidden = running > 0;
    layout();
  }

  // ---- the boards fill the space ----------------------------------------------------------

  // On a screen (the wide layout: the page is the window's height), the running games'
  // boards get the largest squares with which all of them fit in the games' area: every
  // number of columns is tried. On a narrow window the boards keep their size and the page
  // scrolls. The body's data-cell and data-columns say what was chosen.
  var laidOut = '';
  function layout() {
    var live = $('live');
    var boxes = live.children;
    var n = boxes.length;
    if (!n) return;
    var wide = window.matchMedia('(min-width: 1000px)').matches;
    var width = live.clientWidth;
    var height = wide ? live.clientHeight : Infinity;
    // What a game's box holds besides its squares (its padding and border, the board's
    // lines between squares and its frame; the lines of text above and below, measured on
    // the first box that shows its board).
    var shown = null;
    for (var i = 0; i < n && !shown; i++) if (!boxes[i].querySelector('.board').hidden) shown = boxes[i];
    var key = [n, width, height, page.width, page.height, !!shown].join(' ');
    if (key === laidOut) return;
    laidOut = key;
    var extraW = 14 + (page.width - 1) + 4;
    var text = shown ? shown.offsetHeight - shown.querySelector('.board').offsetHeight : 64;
    var extraH = text + (page.height - 1) + 4;
    var gap = 10;
    var best = { cell: 0, columns: 1 };
    for (var columns = 1; columns <= n; columns++) {
      var rows = Math.ceil(n / columns);
      var byW = ((width - (columns - 1) * gap) / columns - extraW) / page.width;
      var byH = ((height - (rows - 1) * gap) / rows - extraH) / page.height;
      var c = Math.floor(Math.min(byW, byH, 64));
      if (c > best.cell) best = { cell: c, columns: columns };
    }
    var size = Math.max(best.cell, 6);
    if (!wide) size = Math.min(Math.max(size, 22), 30);
    // The longest game id fits on its board's width (a monospace character is about 0.6 em).
    var longest = 1;
    for (var k = 0; k < n; k++) longest = Math.max(longest, boxes[k].getAttribute('data-game').length);
    function apply(size) {
      var boardW = page.width * (size + 1) + 3;
      live.style.setProperty('--cell', size + 'px');
      live.style.setProperty('--board-w', boardW + 'px');
      live.style.setProperty('--gid-font', Math.max(7, Math.min(12, Math.floor(boardW / (longest * 0.62)))) + 'px');
      live.style.gridTemplateColumns = wide ? 'repeat(' + best.columns + ', max-content)' : '';
      // Small boards: smaller lines of text, no clocks; the text is redrawn when that
      // changes (it is measured).
      var before = document.body.getAttribute('data-cell');
      var changed = before === null || (Number(before) < 24) !== (size < 24) || (Number(before) < 14) !== (size < 14);
      live.classList.toggle('compact', size < 14);
      document.body.setAttribute('data-cell', String(size));
      if (changed) redraw();
    }
    apply(size);
    // Lines of text that wrapped at the new size can make the boxes taller: smaller squares
    // until everything fits.
    function overflows() {
      return live.scrollHeight > live.clientHeight + 1 || live.scrollWidth > live.clientWidth + 1;
    }
    while (wide && size > 6 && overflows()) {
      size -= 1;
      apply(size);
    }
    // And larger ones while everything still fits (the lines of text measured may have been
    // those of larger boards).
    while (wide && size < 64 && !overflows()) {
      apply(size + 1);
      if (overflows()) {
        apply(size);
        break;
      }
      size += 1;
    }
    document.body.setAttribute('data-columns', String(wide ? best.columns : 0));
  }

  // The clocks and the ply say less on small boards.
  function redraw() {
    Object.keys(page.games).forEach(function (id) {
      var v = page.games[id];
      if (v.last) {
        drawPlayers(v, v.last);
        drawPly(v, v.last);
      }
    });
  }
  window.addEventListener('resize', function () { laidOut = ''; layout(); });

  // ---- a live game ------------------------------------------------------------------------

  function setCell(cell, piece) {
    cell.setAttribute('data-piece', piece);
    cell.replaceChildren();
    if (piece) {
      var parts = piece.split(':');
      cell.appendChild(el('span', 'p ' + parts[0], parts[1]));
    }
  }

  function buildGame(g) {
    var box = el('div', 'game');
    box.setAttribute('data-game', g.id);
    var head = el('div', 'head');
    head.appendChild(el('strong', 'gid', g.id));
    var ply = el('span', 'ply');
    head.appendChild(ply);
    box.appendChild(head);
    var top = el('div', 'player');
    var bottom = el('div', 'player');
    box.appendChild(top);
    var board = el('div', 'board');
    board.style.gridTemplateColumns = 'repeat(' + page.width + ', var(--cell))';
    var cells = {};
    for (var rank = page.height - 1; rank >= 0; rank--) {
      for (var file = 0; file < page.width; file++) {
        var i = rank * page.width + file;
        var cell = el('div', 'cell' + ((file + rank) % 2 ? ' alt' : '') + (page.lakes[i] ? ' lake' : ''));
        cell.setAttribute('data-square', page.squares[i]);
        cell.setAttribute('data-piece', '');
        cells[i] = cell;
        board.appendChild(cell);
      }
    }
    box.appendChild(board);
    box.appendChild(bottom);
    return { box: box, top: top, bottom: bottom, board: board, cells: cells, ply: ply, red: g.red, blue: g.blue };
  }

  function drawPlayers(v, g) {
    function row(side, name) {
      var line = el('div', 'who');
      line.setAttribute('data-side', side);
      var n = el('span', g.to_move === side ? 'on-move' : null);
      n.appendChild(el('span', 'swatch ' + side));
      n.appendChild(document.createTextNode(name));
      n.setAttribute('title', name);
      line.appendChild(n);
      var c = el('span', 'clock', clockText(g.clocks && g.clocks[side]));
      c.setAttribute('data-clock', side);
      line.appendChild(c);
      return line;
    }
    v.top.replaceChildren(row('blue', v.blue));
    v.bottom.replaceChildren(row('red', v.red));
  }

  function drawPly(v, g) {
    v.box.setAttribute('data-shown', String(g.shown));
    v.box.setAttribute('data-played', String(g.played));
    var text = 'Ply ' + g.shown;
    if (page.delay > 0) text += ' (' + g.played + ' played)';
    if (!g.hasBoard) text = 'Setting up\u2026';
    v.ply.setAttribute('title', text);
    // Small boards: the ply's number alone, beside the game's id.
    if ($('live').classList.contains('compact') && g.hasBoard) text = String(g.shown);
    v.ply.textContent = text;
  }

  function addGame(g) {
    var v = page.games[g.id];
    if (!v) {
      v = buildGame(g);
      page.games[g.id] = v;
      $('live').appendChild(v.box);
      laidOut = '';
    }
    g.hasBoard = !!g.board;
    v.hasBoard = g.hasBoard;
    v.board.hidden = !g.hasBoard;
    laidOut = '';
    v.shown = g.shown;
    dropBoard(v);
    if (g.board) {
      // The module's board from now on: the plies are applied to it.
      var made = callWasm('viewer_live_new', null, { width: page.width, height: page.height, board: g.board, to_move: g.to_move });
      if (made.error) return resync('game ' + g.id + ': ' + made.error);
      v.handle = made.handle;
      for (var i = 0; i < g.board.length; i++) setCell(v.cells[i], g.board[i]);
    }
    v.last = g;
    drawPlayers(v, g);
    drawPly(v, g);
    status();
  }

  function updateBoards(msg) {
    for (var k = 0; k < msg.games.length; k++) {
      var g = msg.games[k];
      var v = page.games[g.id];
      if (!v || !v.handle) continue;
      // Plies this page missed (or holds already) cannot be applied: a fresh snapshot.
      if (v.shown + g.plies.length !== g.shown) {
        return resync('game ' + g.id + ': at ply ' + v.shown + ', sent ' + g.plies.length + ' plies up to ' + g.shown);
      }
      var r = callWasm('viewer_live_apply', v.handle, g.plies);
      Object.keys(v.cells).forEach(function (i) { v.cells[i].classList.remove('changed'); });
      Object.keys(r.changes).forEach(function (i) {
        setCell(v.cells[i], r.changes[i]);
        v.cells[i].classList.add('changed');
      });
      if (r.error) return resync('game ' + g.id + ': ' + r.error);
      v.shown = g.shown;
      g.hasBoard = v.hasBoard;
      v.last = g;
      drawPlayers(v, g);
      drawPly(v, g);
    }
  }

  // ---- lists ------------------------------------------------------------------------------

  // A finished game: its number, both bots (the winner in bold), the result in words,
  // its plies, and its id opening its viewer page.
  function finishedRow(r) {
    var tr = el('tr');
    tr.setAttribute('data-finished', String(r.n));
    tr.appendChild(el('td', 'n', r.n));
    var score = r.result.split(' ')[0];
    var red = el('td', score === '1-0' ? 'win' : null);
    red.appendChild(el('span', 'swatch red'));
    red.appendChild(document.createTextNode(r.red));
    var blue = el('td', score === '0-1' ? 'win' : null);
    blue.appendChild(el('span', 'swatch blue'));
    blue.appendChild(document.createTextNode(r.blue));
    tr.appendChild(red);
    tr.appendChild(blue);
    tr.appendChild(el('td', null, r.result.replace(/_/g, ' ') + ', ' + r.plies + (r.plies === 1 ? ' ply' : ' plies')));
    var id = el('td', 'gid');
    var a = el('a', null, r.id);
    a.setAttribute('href', r.href);
    id.appendChild(a);
    tr.appendChild(id);
    return tr;
  }

  function finishedShown() {
    var n = $('finished').tBodies[0].children.length;
    $('no-finished').hidden = n > 0;
    $('finished').hidden = n === 0;
    $('finished-note').textContent = page.done > n ? '(the last ' + n + ' of ' + page.done + ')' : '';
  }

  // ---- the host's notices -----------------------------------------------------------------

  function noticeItem(n) {
    var li = el('li', n.warning ? 'warning' : null, n.text);
    li.setAttribute('data-level', n.level);
    return li;
  }

  function addNotice(n) {
    var list = $('notices');
    list.insertBefore(noticeItem(n), list.firstChild);
    keep(list, 50);
    $('no-notices').hidden = true;
  }

  function faultRow(f) {
    var tr = el('tr', f.held ? 'held' : null);
    [f.game, f.bot, f.color, f.reason, f.message].forEach(function (t) { tr.appendChild(el('td', null, t)); });
    return tr;
  }

  function keep(tbody, max) {
    while (tbody.children.length > max) tbody.removeChild(tbody.lastChild);
  }

  // The warning that the machine is overloaded (the host's tally of the finished games'
  // stall credit): for whom, and how often.
  function renderOverload(o) {
    page.overload = o;
    markOverloaded();
    var box = $('overload');
    if (!o || !o.overloaded) {
      box.hidden = true;
      box.replaceChildren();
      box.removeAttribute('data-overloaded');
      return;
    }
    var head = el('p');
    head.appendChild(el('strong', null, 'The machine is overloaded'));
    head.appendChild(document.createTextNode(': the results may be distorted (stall credit at its cap, or ' +
      o.stalled_moves_threshold_percent + ' % of a bot\'s moves or more stalled by ' +
      o.stalled_share_of_limit_percent + ' % of their time or more).'));
    var list = el('ul');
    o.bots.filter(function (b) { return b.overloaded; }).forEach(function (b) {
      var capped = b.capped_moves ? b.capped_moves + (b.capped_moves === 1 ? ' move' : ' moves') + ' at the cap; ' : '';
      var li = el('li', null, b.name + ': ' + capped + b.stalled_moves + ' of ' + b.moves +
        ' moves stalled by ' + o.stalled_share_of_limit_percent + ' % of their time or more; ' +
        (b.stall_us / 1e6).toFixed(3) + ' s credited over ' + b.stall_moves + ' moves, ' +
        b.stall_share_percent.toFixed(1) + ' % of its thinking time');
      li.setAttribute('data-bot', b.name);
      list.appendChild(li);
    });
    box.replaceChildren(head, list);
    box.setAttribute('data-overloaded', '1');
    box.hidden = false;
  }

  function setStandings(html) {
    // Made and escaped by the host.
    $('standings').innerHTML = html;
    if (page.botPages) linkBots();
    markOverloaded();
  }

  // An arena's standings: each bot's name links to its page (/bots/NAME).
  function linkBots() {
    [].forEach.call(document.querySelectorAll('#standings tr[data-bot]'), function (tr) {
      var name = tr.getAttribute('data-bot');
      var cell = [].find.call(tr.cells, function (td) { return td.textContent === name; });
      if (!cell) return;
      var a = document.createElement('a');
      a.href = '/bots/' + encodeURIComponent(name);
      a.className = 'bot-page';
      a.textContent = name;
      cell.replaceChildren(a);
    });
  }

  // Marks the standings' rows of the bots the machine was overloaded for.
  function markOverloaded() {
    var flagged = {};
    ((page.overload && page.overload.overloaded && page.overload.bots) || []).forEach(function (b) {
      if (b.overloaded) flagged[b.name] = true;
    });
    [].forEach.call(document.querySelectorAll('#standings tr[data-bot]'), function (tr) {
      var on = !!flagged[tr.getAttribute('data-bot')];
      tr.classList.toggle('overloaded', on);
      if (on) tr.setAttribute('data-overloaded', '1');
      else tr.removeAttribute('data-overloaded');
    });
  }

  // ---- the stream -------------------------------------------------------------------------

  function snapshot(s) {
    page.width = s.width;
    page.height = s.height;
    page.squares = s.squares;
    page.lakes = {};
    s.lakes.forEach(function (i) { page.lakes[i] = true; });
    page.delay = s.delay;
    page.done = s.done;
    page.planned = s.planned;
    page.over = s.over;
    page.botPages = !!s.bot_pages;
    Object.keys(page.games).forEach(function (id) { dropBoard(page.games[id]); });
    page.games = {};
    $('live').replaceChildren();
    s.games.forEach(addGame);
    var body = $('finished').tBodies[0];
    body.replaceChildren();
    s.finished.forEach(function (r) { body.appendChild(finishedRow(r)); });
    var notices = $('notices');
    notices.replaceChildren();
    s.notices.forEach(function (n) { notices.appendChild(noticeItem(n)); });
    $('no-notices').hidden = s.notices.length > 0;
    var faults = $('faults').tBodies[0];
    faults.replaceChildren();
    s.faults.forEach(function (f) { faults.appendChild(faultRow(f)); });
    $('no-faults').hidden = s.faults.length > 0;
    $('faults').hidden = s.faults.length === 0;
    renderRemote(s.remote);
    renderOverload(s.overload);
    $('delay-note').textContent = s.delay > 0 ? '(shown ' + s.delay + ' plies behind)' : '';
    setStandings(s.standings);
    finishedShown();
    status();
    document.body.setAttribute('data-ready', '1');
  }

  // The remote bots' table: connection state and the lag of their moves.
  function renderRemote(bots) {
    // The section is shown only when the event has remote bots.
    $('remote').hidden = $('remote-head').hidden = !bots.length;
    if (!bots.length) {
      $('remote').replaceChildren(el('p', 'note', 'No remote bots in this event.'));
      return;
    }
    var table = el('table', 'list');
    table.id = 'remote-table';
    var head = el('tr');
    ['Bot', 'Connection', 'Lag now', 'Median lag', '90% lag', 'Moves', 'Credit given'].forEach(function (h) {
      head.appendChild(el('th', null, h));
    });
    table.appendChild(el('thead')).appendChild(head);
    var body = table.appendChild(el('tbody'));
    var us = function (v) { return v === null || v === undefined ? '\u2014' : fmtUs(v); };
    bots.forEach(function (b) {
      var tr = el('tr');
      tr.setAttribute('data-bot', b.name);
      tr.setAttribute('data-connected', b.connected ? '1' : '0');
      var state = b.connected ? 'connected' : (b.connections ? 'disconnected' : 'not connected yet');
      if (b.connections > 1) state += ' (' + b.connections + ' connections)';
      [b.name, state, us(b.lag_now_us), us(b.lag_median_us), us(b.lag_p90_us), b.moves, fmtUs(b.credit_us)].forEach(function (v) {
        tr.appendChild(el('td', null, v));
      });
      body.appendChild(tr);
    });
    $('remote').replaceChildren(table);
  }

  function on(source, name, f) {
    source.addEventListener(name, function (e) { f(JSON.parse(e.data)); });
  }

  var source = null;

  // Starts over from a fresh snapshot: the page missed something, or the module refused a
  // ply (said on the console, and counted in the body's data-resyncs).
  function resync(why) {
    resyncs += 1;
    document.body.setAttribute('data-resyncs', String(resyncs));
    console.warn('live page: ' + why + '; reloading the event\'s state');
    source.close();
    connect();
  }

  function connect() {
    source = new EventSource('/events');
    on(source, 'snapshot', function (m) {
      snapshot(m);
      // An event already over sends nothing more: no reconnecting to it.
      if (m.over) source.close();
    });
    on(source, 'game', addGame);
    on(source, 'boards', updateBoards);
    on(source, 'finished', function (m) {
      var v = page.games[m.row.id];
      if (v) {
        dropBoard(v);
        v.box.remove();
        delete page.games[m.row.id];
      }
      var body = $('finished').tBodies[0];
      body.insertBefore(finishedRow(m.row), body.firstChild);
      keep(body, 100);
      page.done = m.done;
      finishedShown();
      status();
    });
    on(source, 'fault', function (f) {
      var body = $('faults').tBodies[0];
      body.insertBefore(faultRow(f), body.firstChild);
      keep(body, 50);
      $('no-faults').hidden = true;
      $('faults').hidden = false;
    });
    on(source, 'standings', function (m) {
      setStandings(m.html);
      page.done = Math.max(page.done, m.done);
      status();
    });
    on(source, 'remote', function (m) { renderRemote(m.bots); });
    on(source, 'notice', addNotice);
    on(source, 'overload', renderOverload);
    on(source, 'over', function (m) {
      page.over = true;
      page.done = m.done;
      status();
      source.close();
    });
    source.onerror = function () {
      if (!page.over) $('status').textContent = 'connection lost; reconnecting\u2026';
    };
  }

  // The module first (the same one the viewer pages inline), then the event.
  fetch('{{WASM_URL}}')
    .then(function (r) {
      if (!r.ok) throw new Error('HTTP ' + r.status);
      return r.arrayBuffer();
    })
    .then(function (bytes) { return WebAssembly.instantiate(bytes, {}); })
    .then(function (m) {
      wasm = m.instance;
      document.body.setAttribute('data-engine', 'wasm');
      document.body.setAttribute('data-resyncs', '0');
      connect();
    }, function (e) {
      $('status').textContent = 'This browser cannot run the live page\'s rules (WebAssembly): ' + e;
      throw e;
    });
})();
