// Drives the game viewer in headless Chromium through the DevTools protocol, with nothing
// but Node's standard library (cdp.mjs).
//
//   node drive.mjs --html PAGE.html --ply N [--game K] [--views spectator,red,blue]
//                  [--screenshot OUT.png] [--screenshot-view spectator] [--also-game K2]
//                  [--follow-link L]
//
// With --follow-link, PAGE.html is an index page (`tournament --out`): it reads the page's
// game links and ranking, clicks link L (0-based) of #games, and drives the viewer it opens.
//
// It opens the page, selects game K (0-based) with #game-select, clicks #next N+2 times and
// #prev twice (so it shows ply N), then for each view clicks its button and reads every
// board square's data-piece. It also checks the slider and the move list, and takes a
// screenshot; with --also-game it then selects game K2 and reads what it shows (for a game
// without a board). It prints one JSON object on stdout; exit status 0 when the page was driven
// (the caller judges the content), 2 on a failure, 3 when Chromium is missing.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { Cdp, openPage, startChromium, stopChromium, wsConnect } from './cdp.mjs';

function parseArgs(argv) {
  const args = { views: 'spectator,red,blue', game: null, screenshot: null, 'screenshot-view': 'spectator', ply: '0', 'also-game': null, 'follow-link': null };
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith('--') || argv[i + 1] === undefined) throw new Error(`bad argument ${argv[i]}`);
    args[argv[i].slice(2)] = argv[i + 1];
  }
  if (!args.html) throw new Error('--html is required');
  return args;
}

// ---- the session -------------------------------------------------------------------------

async function drive(args, cdp) {
  const { s, evaluate, problems } = await openPage(cdp, { width: 1360, height: 1010 });
  const click = (selector) => evaluate(`document.querySelector(${JSON.stringify(selector)}).click()`);
  const label = () => evaluate(`Number(document.querySelector('#ply-label').getAttribute('data-ply'))`);

  await s('Page.navigate', { url: pathToFileURL(path.resolve(args.html)).href });
  let index = null;
  if (args['follow-link'] !== null) {
    const until = Date.now() + 10000;
    while ((await evaluate(`document.readyState === 'complete' && !!document.querySelector('#games')`).catch(() => false)) !== true) {
      if (Date.now() > until) throw new Error(`the index page did not load: ${JSON.stringify(problems)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    index = await evaluate(`({
      url: location.href,
      links: [...document.querySelectorAll('#games a')].map((a) => a.getAttribute('href')),
      ranking: [...document.querySelectorAll('#ranking [data-bot]')].map((r) => r.getAttribute('data-bot')),
    })`);
    await evaluate(`document.querySelectorAll('#games a')[${Number(args['follow-link'])}].click()`);
    index.followed = index.links[Number(args['follow-link'])];
  }
  const deadline = Date.now() + 10000;
  while ((await evaluate(`document.body ? document.body.getAttribute('data-ready') : null`).catch(() => null)) !== '1') {
    if (Date.now() > deadline) throw new Error(`the page did not get ready: ${JSON.stringify(problems)}`);
    await new Promise((r) => setTimeout(r, 50));
  }

  const out = { problems, index };
  out.url = await evaluate('location.href');
  out.title = await evaluate('document.title');
  out.script_elements = await evaluate(`document.querySelectorAll('script').length`);
  // 'wasm' once the page's WebAssembly module (the rules) runs; the time it took to
  // compute the first game's positions.
  out.engine = await evaluate(`document.body.getAttribute('data-engine')`);
  out.compute_ms = await evaluate(`Number(document.body.getAttribute('data-compute-ms'))`);
  out.game_count = await evaluate(`document.querySelectorAll('#game-select option').length`);
  if (args.game !== null) {
    await evaluate(
      `(() => { const s = document.querySelector('#game-select'); s.value = ${JSON.stringify(String(args.game))}; s.dispatchEvent(new Event('change')); })()`,
    );
  }
  out.selected_game = await evaluate(`document.querySelector('#game-select').value`);
  const ply = Number(args.ply);
  for (let i = 0; i < ply + 2; i++) await click('#next');
  for (let i = 0; i < 2; i++) await click('#prev');
  out.ply_after_clicks = await label();

  // The slider and the move list reach the same ply.
  await evaluate(`(() => { const s = document.querySelector('#slider'); s.value = '0'; s.dispatchEvent(new Event('input')); })()`);
  out.ply_after_slider = await label();
  await click(`[data-ply-row="${ply}"]`);
  out.ply_after_row_click = await label();

  out.boards = {};
  for (const view of args.views.split(',')) {
    await click(`#view-${view}`);
    out.boards[view] = await evaluate(
      `Object.fromEntries([...document.querySelectorAll('[data-square]')].map((c) => [c.getAttribute('data-square'), c.getAttribute('data-piece')]))`,
    );
  }
  out.texts = await evaluate(`({
    players: [...document.querySelectorAll('.player .name')].map((e) => e.textContent),
    result: document.querySelector('#result').textContent,
    detail: document.querySelector('#ply-detail').textContent,
    captured: { red: document.querySelector('#captured-red').textContent, blue: document.querySelector('#captured-blue').textContent },
    clocks: [...document.querySelectorAll('.player')].map((p) => [p.classList.contains('red') ? 'red' : 'blue', p.querySelector('.clock').textContent]),
    move_rows: document.querySelectorAll('[data-ply-row]').length,
    fights: [...document.querySelectorAll('[data-ply-row] .fight')].map((f) => f.textContent),
    options: [...document.querySelectorAll('#game-select option')].map((o) => o.textContent),
    about: document.querySelector('#about').textContent,
  })`);

  if (args.screenshot) {
    await click(`#view-${args['screenshot-view']}`);
    const shot = await s('Page.captureScreenshot', { format: 'png' });
    fs.writeFileSync(args.screenshot, Buffer.from(shot.data, 'base64'));
    out.screenshot = args.screenshot;
  }
  if (args['also-game'] !== null) {
    await evaluate(
      `(() => { const s = document.querySelector('#game-select'); s.value = ${JSON.stringify(String(args['also-game']))}; s.dispatchEvent(new Event('change')); })()`,
    );
    out.also_game = await evaluate(`({
      board_hidden: document.querySelector('#board-area').hidden,
      no_board: document.querySelector('#no-board').hidden ? null : document.querySelector('#no-board').textContent,
      result: document.querySelector('#result').textContent,
    })`);
  }
  return out;
}

async function main() {
  const started = Date.now();
  const args = parseArgs(process.argv.slice(2));
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'viewer-chromium-'));
  const chromium = startChromium(userDir);
  const timer = setTimeout(async () => {
    process.stderr.write(`drive.mjs: gave up after 30 s\n${chromium.stderr()}\n`);
    await stopChromium(chromium.child);
    fs.rmSync(userDir, { recursive: true, force: true });
    process.exit(2);
  }, 30000);
  let status = 0;
  try {
    const ws = await wsConnect(await chromium.url);
    const cdp = new Cdp(ws);
    const out = await drive(args, cdp);
    out.elapsed_ms = Date.now() - started;
    process.stdout.write(JSON.stringify(out) + '\n');
    await cdp.send('Browser.close').catch(() => {});
    ws.close();
  } catch (e) {
    process.stderr.write(`drive.mjs: ${e.message}\n`);
    status = e.missing ? 3 : 2;
  }
  clearTimeout(timer);
  await stopChromium(chromium.child);
  fs.rmSync(userDir, { recursive: true, force: true });
  process.exit(status);
}

main();
