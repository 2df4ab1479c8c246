import { expect, it } from 'vitest';
import { startParley } from '../../test/helper.ts';

it('the demo page shows the server-rendered thread inside the widget, and without the script on ?parley_static=1', async () => {
  const parley = await startParley();
  try {
    await parley.newSite();
    const page = await (await fetch(`${parley.url}/`)).text();
    expect(page).toMatch(/<parley-comments site-id="[^"]+" thread-url="[^"]+" theme="auto"><template shadowrootmode="open">/);
    expect(page).toContain('<script src="/embed.js" async></script>');
    const bare = await (await fetch(`${parley.url}/?parley_static=1`)).text();
    expect(bare).toContain('<template shadowrootmode="open">');
    expect(bare).not.toContain('src="/embed.js"');
  } finally {
    await parley.close();
  }
}, 60_000);
