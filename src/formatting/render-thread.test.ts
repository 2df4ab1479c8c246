import { describe, expect, it } from 'vitest';
import { renderContent } from './html.ts';
import { renderOffLoop } from './render-thread.ts';

const names = new Map([['usr_01abc', 'Ada Lovelace']]);
const sources = ['```js\nconst answer = 42;\n```', '~~~python\nprint("hi")\n~~~', 'plain **bold** text', '@[Ada](usr_01abc) wrote `x < y`'];
/** A code block long enough that highlighting it takes some milliseconds. */
const longBlock = `\`\`\`js\n${Array.from({ length: 400 }, (_, i) => `const value${i} = compute("${i}", [${i}, ${i + 1}]); // step ${i}`).join('\n')}\n\`\`\``;

describe('rendering off the event loop', () => {
  it('leaves the event loop free while a code block is highlighted, once the thread runs', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    try {
      // The first render starts the thread; until it runs, code blocks render on the loop, which ticks meanwhile never.
      await expect.poll(async () => {
        ticks = 0;
        await renderOffLoop(longBlock, 'markdown', names);
        return ticks;
      }, { timeout: 20_000 }).toBeGreaterThan(0);
    } finally {
      clearInterval(timer);
    }
  });

  it('gives what rendering on the loop gives, on the thread and off it', async () => {
    const rendered = await Promise.all([...sources, longBlock].map((source) => renderOffLoop(source, 'markdown', names)));
    expect(rendered).toEqual([...sources, longBlock].map((source) => renderContent(source, 'markdown', names)));
    expect(rendered[0]).toContain('<span class="hljs-keyword">const</span>');
  });
});
