import { stdin, stderr } from 'node:process';

/**
 * The password for `parley admin create`: typed at a terminal without echo (twice, to catch a
 * typo), or read from stdin when it is not a terminal (`printf '%s\n' "$PASSWORD" | parley admin create ...`).
 */
export async function readPassword(): Promise<string> {
  if (!stdin.isTTY) return readAll();
  const password = await promptHidden('Password: ');
  if ((await promptHidden('Password again: ')) !== password) throw new Error('the two passwords differ');
  return password;
}

async function readAll(): Promise<string> {
  let text = '';
  for await (const chunk of stdin) text += chunk;
  // One trailing line break is the end of the line, not part of the password.
  return text.replace(/\r?\n$/, '');
}

/** One line from the terminal in raw mode, echoing nothing; Ctrl-C and Ctrl-D give up. */
function promptHidden(prompt: string): Promise<string> {
  stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise((resolve, reject) => {
    let typed = '';
    const finish = (error: Error | null) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      stderr.write('\n');
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') return finish(null);
        if (char === '\u0003' || char === '\u0004') return finish(new Error('no password given'));
        if (char === '\u007f' || char === '\b') typed = [...typed].slice(0, -1).join('');
        else typed += char;
      }
    };
    stdin.on('data', onData);
  });
}
