import dns2 from 'dns2';

const { Packet } = dns2;
/** A TXT character-string holds at most 255 octets; longer values are published as several. */
const TXT_CHUNK = 255;

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, ready for DNS_SERVERS. */
  address: string;
  setTxt(name: string, values: string[]): void;
  setMx(name: string, exchanges: Array<{ exchange: string; priority: number }>): void;
  /** The name's CNAME, answered to CNAME queries (the name then has no other records, as DNS requires). */
  setCname(name: string, target: string): void;
  /** Removes every record of the name. */
  remove(name: string): void;
  close(): Promise<void>;
}

interface Zone {
  txt: Map<string, string[]>;
  mx: Map<string, Array<{ exchange: string; priority: number }>>;
  cname: Map<string, string>;
}

/** A real authoritative DNS server on loopback (UDP and TCP), answering TXT, MX and CNAME queries from tables the test controls. */
export async function startDnsServer(): Promise<TestDnsServer> {
  const zone: Zone = { txt: new Map(), mx: new Map(), cname: new Map() };
  const handle: dns2.DnsHandler = (request, send) => {
    const response = Packet.createResponseFromRequest(request);
    const [question] = request.questions;
    const name = question?.name.toLowerCase() ?? '';
    const txt = zone.txt.get(name);
    const mx = zone.mx.get(name);
    const cname = zone.cname.get(name);
    if (!txt && !mx && cname === undefined) {
      response.header.rcode = 3; // NXDOMAIN
    } else if (question?.type === Packet.TYPE.TXT) {
      for (const value of txt ?? []) {
        const chunks = value.match(new RegExp(`.{1,${TXT_CHUNK}}`, 'g')) ?? [''];
        response.answers.push({ name: question.name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 60, data: chunks } as never);
      }
    } else if (question?.type === Packet.TYPE.MX) {
      for (const { exchange, priority } of mx ?? []) {
        response.answers.push({ name: question.name, type: Packet.TYPE.MX, class: Packet.CLASS.IN, ttl: 60, exchange, priority } as never);
      }
    } else if (question?.type === Packet.TYPE.CNAME && cname !== undefined) {
      response.answers.push({ name: question.name, type: Packet.TYPE.CNAME, class: Packet.CLASS.IN, ttl: 60, domain: cname } as never);
    }
    send(response);
  };
  // UDP first; answers over 512 octets are truncated there and resolvers retry over TCP on the same port.
  // The port the system gives UDP may be taken for TCP (by a connection of a test running alongside,
  // whose local port it is): then both are closed and another pair is tried.
  for (let tries = 1; ; tries++) {
    const udp = dns2.createServer({ udp: true, handle });
    await listen(udp, { udp: { port: 0, address: '127.0.0.1' } });
    const { port } = (udp.addresses() as { udp: { port: number } }).udp;
    const tcp = dns2.createServer({ tcp: true, handle });
    try {
      await listen(tcp, { tcp: { port, address: '127.0.0.1' } });
    } catch (error) {
      await udp.close();
      if ((error as { code?: string }).code === 'EADDRINUSE' && tries < 20) continue;
      throw error;
    }
    return serverOn(port, udp, tcp, zone);
  }
}

function serverOn(port: number, udp: ReturnType<typeof dns2.createServer>, tcp: ReturnType<typeof dns2.createServer>, zone: Zone): TestDnsServer {
  return {
    address: `127.0.0.1:${port}`,
    setTxt: (name, values) => void zone.txt.set(name.toLowerCase(), values),
    setMx: (name, exchanges) => void zone.mx.set(name.toLowerCase(), exchanges),
    setCname: (name, target) => void zone.cname.set(name.toLowerCase(), target),
    remove: (name) => {
      zone.txt.delete(name.toLowerCase());
      zone.mx.delete(name.toLowerCase());
      zone.cname.delete(name.toLowerCase());
    },
    close: async () => {
      await udp.close();
      await tcp.close();
    },
  };
}

/** Resolves once listening; rejects with the error a listen fails with (EADDRINUSE), which dns2 only emits. */
async function listen(server: ReturnType<typeof dns2.createServer>, options: Parameters<ReturnType<typeof dns2.createServer>['listen']>[0]) {
  const listening = new Promise<void>((resolve, reject) => {
    server.once('listening', () => resolve());
    server.once('error', reject);
  });
  await Promise.all([server.listen(options), listening]);
}
