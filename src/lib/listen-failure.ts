import { ConfigError } from '../config.js';

/** A listener as the configuration names it: `PORT` at `HOST`, `INBOUND_SMTP_PORT` at `INBOUND_SMTP_HOST`, … */
export interface Listener {
  portVariable: string;
  hostVariable: string;
  host: string;
  port: number;
  /** Whether 0 turns the listener off (the SMTP ones), which the hint then offers. */
  optional?: boolean;
}

/** Why each common listen error happens and what to change, naming the variable to change. */
function hintFor(code: string, { portVariable, hostVariable, port, optional }: Listener): string {
  const off = optional ? ', or 0 for none' : '';
  switch (code) {
    case 'EADDRINUSE':
      return `: another process is listening there; stop it, or set ${portVariable} to a free port${off}`;
    case 'EACCES':
      return port < 1024 ? `: permission denied (ports below 1024 need root or CAP_NET_BIND_SERVICE); set ${portVariable} to 1024 or above${off}` : ': permission denied';
    case 'EADDRNOTAVAIL':
      return `: ${hostVariable} is not an address of this machine`;
    default:
      return '';
  }
}

/**
 * A listener that could not start, as one sentence naming the variable, e.g.
 * `Cannot listen on PORT 3000 at 127.0.0.1 (EADDRINUSE): another process is
 * listening there; stop it, or set PORT to a free port`. A ConfigError: the
 * CLI prints it as one line and exits 1.
 */
export function listenFailure(error: unknown, listener: Listener): ConfigError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? (error instanceof Error ? error.message : String(error));
  return new ConfigError(`Cannot listen on ${listener.portVariable} ${listener.port} at ${listener.host} (${code})${hintFor(code, listener)}`, { cause: error });
}
