/** An upstream as a route names it: what the Domains page reads of GET …/upstreams. */
export interface RouteUpstream {
  id: string;
  name: string;
  type: 'smtp' | 'ses';
  health: 'healthy' | 'degraded' | 'down';
}

/** Upstreams a route may name at most: the server's MAX_ROUTE_LENGTH (domains/domain-service.ts). */
export const MAX_ROUTE = 5;

export const KIND: Record<RouteUpstream['type'], string> = { smtp: 'SMTP relay', ses: 'Amazon SES' };

/** An id's upstream by name; the id itself should the list not hold it (not read yet). */
export const nameOf = (upstreams: RouteUpstream[] | undefined, id: string) => upstreams?.find((u) => u.id === id)?.name ?? id;
