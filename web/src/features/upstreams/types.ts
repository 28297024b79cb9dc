/** An upstream as the dashboard API answers it: credentials masked (the password and secret key never leave the server). */
export interface Upstream {
  id: string;
  name: string;
  type: 'smtp' | 'ses';
  /** smtp: the URL, its password shown as ********. */
  url?: string;
  starttls?: StartTls;
  region?: string;
  /** ses: masked. */
  access_key_id?: string;
  configuration_set?: string | null;
  endpoint?: string | null;
  health: 'healthy' | 'degraded' | 'down';
  last_error: string | null;
  last_error_at: string | null;
  last_hour: { attempts: number; accepted: number; temporary: number; permanent: number; failed: number };
  /** The domains whose route names it. */
  domains: { id: string; domain: string }[];
  created_at: string;
  updated_at: string;
}

export type StartTls = 'opportunistic' | 'required' | 'never';

/** What POST …/upstreams/:id/test answered: `detail` is the upstream's own words where it answered. */
export interface TestResult {
  ok: boolean;
  detail: string;
  duration_ms: number;
}

export const TYPE_LABELS: Record<Upstream['type'], string> = { smtp: 'SMTP relay', ses: 'Amazon SES' };

export const STARTTLS_LABELS: Record<StartTls, string> = {
  opportunistic: 'STARTTLS when the relay offers it',
  required: 'STARTTLS required',
  never: 'No STARTTLS',
};

/** How the health badge reads: the state, said in words rather than by colour alone. */
export const HEALTH_LABELS: Record<Upstream['health'], string> = { healthy: 'Healthy', degraded: 'Degraded', down: 'Down' };
