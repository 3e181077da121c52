// Drives an arena's live page (`arena run --serve`) and its pages per bot in headless Chromium.
//
//   node arena.mjs --url http://127.0.0.1:PORT/ --bot NAME --holder NAME --gate FILE
//
// It opens the live page and waits for its standings, reads every link of a bot's name,
// clicks the one of --bot and reads that bot's page (its rows against each opponent, the
// points of its rating plot, its recent games and their links, its running games), follows
// its first recent game's link and reads the viewer page it opens (ready, the game's id in
// its data). Then it opens --holder's page (a bot whose game is running, held by the test),
// reads its running games and the whole page's HTML, creates FILE (the held bot then plays
// on) and, without reloading, waits until the page lists that game among its recent games.
// It prints one JSON object; exit 0 when the pages were driven (the caller judges them), 2 on
// a failure, 3 when Chromium is missing.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { Cdp, openPage, startChromium, stopChromium, wsConnect } from './cdp.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function parseArgs(argv) {
  const args = {};
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith('--') || argv[i + 1] === undefined) throw new Error(`bad argument ${argv[i]}`);
    args[argv[i].slice(2)] = argv[i + 1];
  }
  for (const a of ['url', 'bot', 'holder', 'gate']) if (!args[a]) throw new Error(`--${a} is required`);
  return args;
}

async function drive(args, cdp) {
  const { s, evaluate, problems } = await openPage(cdp);
  const until = async (what, expression, ms = 30000) => {
    const end = Date.now() + ms;
    for (;;) {
      const v = await evaluate(expression).catch(() => null);
      if (v) return v;
      if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms: ${JSON.stringify(problems)}`);
      await sleep(50);
    }
  };
  const readBot = () =>
    evaluate(`({
      path: location.pathname,
      name: document.body.getAttribute('data-bot'),
      opponents: [...document.querySelectorAll('#opponents tr[data-opponent]')].map((tr) => ({
        name: tr.getAttribute('data-opponent'), w: +tr.getAttribute('data-w'), d: +tr.getAttribute('data-d'), l: +tr.getAttribute('data-l') })),
      points: [...document.querySelectorAll('#rating-plot circle.point')].map((c) => +c.getAttribute('data-games')),
      recent: [...document.querySelectorAll('#recent tr[data-game]')].map((tr) => ({
        id: tr.getAttribute('data-game'), href: tr.querySelector('a') ? tr.querySelector('a').href : null })),
      running: [...document.querySelectorAll('#running tr[data-game]')].map((tr) => tr.getAttribute('data-game')),
      updates: +(document.body.getAttribute('data-updates') || 0),
      html: document.documentElement.outerHTML,
    })`);

  await s('Page.navigate', { url: args.url });
  await until('the live page', `document.body && document.body.getAttribute('data-ready') === '1'`);
  await until('the standings link the bots', `document.querySelectorAll('#standings a.bot-page').length >= 2`);
  const links = await evaluate(`[...document.querySelectorAll('#standings a.bot-page')].map((a) => ({ name: a.textContent, href: a.getAttribute('href') }))`);
  // A real click on the bot's name.
  await evaluate(`[...document.querySelectorAll('#standings a.bot-page')].find((a) => a.textContent === ${JSON.stringify(args.bot)}).click()`);
  await until("the bot's page", `location.pathname.startsWith('/bots/') && document.getElementById('bot') !== null`);
  const bot = await readBot();
  delete bot.html;
  let viewer = null;
  if (bot.recent.length > 0 && bot.recent[0].href) {
    await s('Page.navigate', { url: bot.recent[0].href });
    await until('the viewer page', `document.body && document.body.getAttribute('data-ready') === '1'`);
    viewer = await evaluate(`({
      path: location.pathname,
      engine: document.body.getAttribute('data-engine'),
      ids: JSON.parse(document.getElementById('data').textContent).games.map((g) => g.id ?? g.game_id),
    })`);
  }
  await s('Page.navigate', { url: new URL(`/bots/${encodeURIComponent(args.holder)}`, args.url).href });
  await until("the holder's page", `document.getElementById('bot') !== null`);
  const holder = await readBot();
  fs.writeFileSync(args.gate, 'go');
  // Live: the held game, once saved, appears among its recent games without a reload.
  const held = holder.running[0];
  await until(
    'the held game among the recent ones',
    `[...document.querySelectorAll('#recent tr[data-game]')].some((tr) => tr.getAttribute('data-game') === ${JSON.stringify(held ?? '')})`,
    120000,
  );
  const after = await readBot();
  delete after.html;
  return { links, bot, viewer, holder, after, problems };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arena-chromium-'));
  const chromium = startChromium(userDir);
  const timer = setTimeout(async () => {
    process.stderr.write(`arena.mjs: gave up after 240 s\n${chromium.stderr()}\n`);
    fs.writeFileSync(args.gate, 'go\n');
    await stopChromium(chromium.child);
    fs.rmSync(userDir, { recursive: true, force: true });
    process.exit(2);
  }, 240000);
  let status = 0;
  try {
    const ws = await wsConnect(await chromium.url);
    const cdp = new Cdp(ws);
    const out = await drive(args, cdp);
    process.stdout.write(JSON.stringify(out) + '\n');
    await cdp.send('Browser.close').catch(() => {});
    ws.close();
  } catch (e) {
    process.stderr.write(`arena.mjs: ${e.message}\n`);
    status = e.missing ? 3 : 2;
  }
  // Whatever happened, the held bot may play on.
  fs.writeFileSync(args.gate, 'go\n');
  clearTimeout(timer);
  await stopChromium(chromium.child);
  fs.rmSync(userDir, { recursive: true, force: true });
  process.exit(status);
}

main();
