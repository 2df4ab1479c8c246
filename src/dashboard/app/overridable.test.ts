import { describe, expect, it } from 'vitest';
import { compileMessage } from '../../i18n/compile.ts';
import { OVERRIDABLE as SERVER_OVERRIDABLE } from '../../sites/strings.ts';
import { messageText, OVERRIDABLE } from './overridable.ts';

describe("the messages a site may reword, as the dashboard lists them", () => {
  it('are the ones the server accepts, each once', () => {
    expect(OVERRIDABLE.map((message) => message.key).sort()).toEqual(Object.keys(SERVER_OVERRIDABLE).sort());
  });

  it("show Parley's English as written in the message files, from the compiled form the bundle holds", () => {
    for (const [key, text] of Object.entries(SERVER_OVERRIDABLE)) expect(messageText(compileMessage(text)), key).toBe(text);
  });

  it('quote what ICU would read as syntax, so the text means the same message', () => {
    const compiled = compileMessage("It's {count, plural, one {'#' is '{'one'}' ''{name}''} other {# isn''t {n, number, percent}}} '{'x'}' ends in ''");
    expect(compileMessage(messageText(compiled))).toEqual(compiled);
  });
});
