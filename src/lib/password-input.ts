import { UsageError } from './usage-error.js';

/** A password piped in (`--password-stdin`): all of standard input, less one final line break. */
export async function readPasswordFromStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

/**
 * Asks for a new password twice on the terminal, without echoing it. The
 * terminal is put in raw mode and the keys read one by one (Enter ends a
 * line, Backspace takes a character back, Ctrl-C and Ctrl-D give up); what
 * arrives after the first Enter is kept for the second question, so a pasted
 * or scripted answer works too.
 */
export async function promptNewPassword(): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) throw new UsageError('No terminal to ask for the password on: pipe it in with --password-stdin');
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  let pending = '';
  const waiting: Array<() => void> = [];
  const onData = (chunk: string) => {
    pending += chunk;
    waiting.shift()?.();
  };
  stdin.on('data', onData);
  const readLine = async (question: string): Promise<string> => {
    process.stderr.write(question);
    let line = '';
    for (;;) {
      if (pending === '') await new Promise<void>((resolve) => waiting.push(resolve));
      const chars = [...pending];
      pending = '';
      for (let i = 0; i < chars.length; i++) {
        const char = chars[i]!;
        if (char === '\r' || char === '\n') {
          // "\r\n" is one Enter.
          const rest = chars.slice(chars[i + 1] === '\n' && char === '\r' ? i + 2 : i + 1).join('');
          pending = rest + pending;
          process.stderr.write('\n');
          return line;
        }
        if (char === '\u0003' || char === '\u0004') {
          process.stderr.write('\n');
          throw new UsageError('Cancelled');
        }
        if (char === '\u007f' || char === '\b') line = [...line].slice(0, -1).join('');
        else line += char;
      }
    }
  };
  try {
    const password = await readLine('Password: ');
    const again = await readLine('Repeat the password: ');
    if (password !== again) throw new UsageError('The two passwords differ');
    return password;
  } finally {
    stdin.off('data', onData);
    stdin.setRawMode(false);
    stdin.pause();
  }
}
