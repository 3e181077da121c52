// The live page of a running event (`--serve`) on a screen: headless Chromium at each
// window size given, a screenshot of each, and the page's geometry measured in the browser.
//
//   node screen.mjs --url http://127.0.0.1:PORT/ --sizes 1920x1080,1280x720
//                   --out DIR --boards N [--name PREFIX]
//
// For each size it opens the page in a window of that size, waits until the page shows N
// live boards, each with its setups (and at least one ply shown), then measures, in one
// evaluation of the page:
//   - the window and the document (whether the page scrolls);
//   - each game's box, its board and its game id (the id's rectangle and whether its text
//     is clipped: scrollWidth past clientWidth), and the games' area;
//   - the header's title (its text and height) and status line;
//   - the standings' table (each row's data-bot and cells), the finished games' rows (and
//     whether a cell is clipped), the notices and the faults;
//   - the square size the page chose (the body's data-cell, data-columns);
// and saves a screenshot as DIR/PREFIX-WxH.png. It prints one JSON object on stdout: per
// size, those figures; exit status 0 when the page was measured (the caller judges them),
// 2 on a failure, 3 when Chromium is missing.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { Cdp, openPage, startChromium, stopChromium, wsConnect } from './cdp.mjs';

function parseArgs(argv) {
  const args = { name: 'live' };
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith('--') || argv[i + 1] === undefined) throw new Error(`bad argument ${argv[i]}`);
    args[argv[i].slice(2)] = argv[i + 1];
  }
  for (const a of ['url', 'sizes', 'out', 'boards']) if (!args[a]) throw new Error(`--${a} is required`);
  return args;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Everything measured, in one evaluation (one consistent state of the page).
const MEASURE = `(() => {
  const rect = (e) => { const r = e.getBoundingClientRect(); return { x: r.x, y: r.y, w: r.width, h: r.height }; };
  const clipped = (e) => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1;
  const live = document.querySelector('#live');
  return {
    window: { w: window.innerWidth, h: window.innerHeight },
    document: { w: document.documentElement.scrollWidth, h: document.documentElement.scrollHeight },
    cell: Number(document.body.getAttribute('data-cell')),
    columns: Number(document.body.getAttribute('data-columns')),
    area: rect(live),
    games: [...live.querySelectorAll('.game')].map((g) => {
      const id = g.querySelector('.gid');
      return {
        id: g.getAttribute('data-game'),
        shown: Number(g.getAttribute('data-shown')),
        box: rect(g),
        board: rect(g.querySelector('.board')),
        board_hidden: g.querySelector('.board').hidden,
        id_text: id.textContent,
        id_rect: rect(id),
        id_clipped: clipped(id),
        head_clipped: clipped(g.querySelector('.head')),
        id_lines: Math.round(id.getBoundingClientRect().height / parseFloat(getComputedStyle(id).lineHeight || '15')),
      };
    }),
    title: { text: document.querySelector('#title').textContent, rect: rect(document.querySelector('#title')),
      line: parseFloat(getComputedStyle(document.querySelector('#title')).lineHeight) || 0 },
    status: document.querySelector('#status').textContent,
    standings: [...document.querySelectorAll('#standings #ranking tbody tr')].map((r) => ({
      bot: r.getAttribute('data-bot'),
      cells: [...r.querySelectorAll('td')].map((c) => c.textContent),
      faults: Object.fromEntries([...r.querySelectorAll('td[data-fault]')].map((c) => [c.getAttribute('data-fault'), Number(c.textContent)])),
      overloaded: r.getAttribute('data-overloaded'),
    })),
    standings_head: [...document.querySelectorAll('#standings #ranking thead th')].map((c) => c.textContent),
    standings_rect: rect(document.querySelector('#standings')),
    standings_table_w: Math.max(0, ...[...document.querySelectorAll('#standings table')].map((t) => t.getBoundingClientRect().width)),
    finished: [...document.querySelectorAll('#finished tbody tr')].map((r) => ({
      id: r.querySelector('a').textContent,
      cells: [...r.querySelectorAll('td')].map((c) => c.textContent),
      font_px: parseFloat(getComputedStyle(r).fontSize),
    })),
    finished_rect: rect(document.querySelector('#finished-box')),
    finished_table_w: document.querySelector('#finished').scrollWidth,
    side_rect: rect(document.querySelector('#side')),
    notices: [...document.querySelectorAll('#notices li')].map((l) => l.textContent),
    faults: document.querySelectorAll('#faults tbody tr').length,
    overload: !document.querySelector('#overload').hidden,
  };
})()`;

async function measure(args, cdp, w, h) {
  const { s, evaluate, problems, targetId } = await openPage(cdp, { width: w, height: h }, 80);
  await s('Page.navigate', { url: args.url });
  const want = Number(args.boards);
  const until = Date.now() + 100000;
  let m = null;
  for (;;) {
    const ready = await evaluate(`document.body ? document.body.getAttribute('data-ready') : null`).catch(() => null);
    if (ready === '1') {
      m = await evaluate(MEASURE);
      const boards = m.games.filter((g) => !g.board_hidden && g.shown > 0).length;
      if (boards >= want && m.games.length >= want) break;
    }
    if (Date.now() > until) {
      throw new Error(`the page did not show ${want} boards at ${w}x${h}: ${JSON.stringify(m && m.games.map((g) => [g.id, g.shown, g.board_hidden]))} ${JSON.stringify(problems)}`);
    }
    await sleep(100);
  }
  // The layout settles (a resize handler, fonts), then the figures and the screenshot.
  await sleep(300);
  m = await evaluate(MEASURE);
  const png = await s('Page.captureScreenshot', { format: 'png' });
  const file = path.join(args.out, `${args.name}-${w}x${h}.png`);
  fs.writeFileSync(file, Buffer.from(png.data, 'base64'));
  m.screenshot = file;
  m.problems = problems;
  await cdp.send('Target.closeTarget', { targetId });
  return m;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'screen-chromium-'));
  const chromium = startChromium(userDir);
  const timer = setTimeout(async () => {
    process.stderr.write(`screen.mjs: gave up after 240 s\n${chromium.stderr()}\n`);
    await stopChromium(chromium.child);
    fs.rmSync(userDir, { recursive: true, force: true });
    process.exit(2);
  }, 240000);
  let status = 0;
  try {
    const ws = await wsConnect(await chromium.url);
    const cdp = new Cdp(ws);
    const out = { sizes: {} };
    for (const size of args.sizes.split(',')) {
      const [w, h] = size.split('x').map(Number);
      out.sizes[size] = await measure(args, cdp, w, h);
    }
    process.stdout.write(JSON.stringify(out) + '\n');
    await cdp.send('Browser.close').catch(() => {});
    ws.close();
  } catch (e) {
    process.stderr.write(`screen.mjs: ${e.message}\n`);
    status = e.missing ? 3 : 2;
  }
  clearTimeout(timer);
  await stopChromium(chromium.child);
  fs.rmSync(userDir, { recursive: true, force: true });
  process.exit(status);
}

main();
