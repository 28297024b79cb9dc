/** A setting Mailroom cannot run with: start-up stops with its message, which names the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
