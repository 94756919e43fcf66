import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors';
import { parseAllowedHosts } from './hosts';
import { assertAnswersAllowed, assertLiteralAllowed, createGuardedLookup, resolveAll, resolveAndCheck, systemLookup, type LookupFunction } from './lookup';
import { fakeLookup, startHttpServer, type TestServer } from './testing/servers';

const rules = (...entries: string[]) => parseAllowedHosts(entries).rules;
const dest = (hostname: string, port = 80, protocol = 'http:') => ({ hostname, port, protocol });

async function rejection(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return e as AppError;
  }
  throw new Error('expected a rejection');
}

/** Calls a lookup the way a socket does and returns what it answered. */
function callLookup(lookup: LookupFunction, hostname: string, options: { all?: boolean; family?: number } = { all: true }) {
  return new Promise<{ address: unknown; family?: number }>((resolve, reject) =>
    lookup(hostname, options, (err, address, family) => (err ? reject(err) : resolve({ address, ...(family !== undefined ? { family } : {}) }))),
  );
}

describe('assertAnswersAllowed', () => {
  it('lets public answers through a wildcard, and refuses any non-public one', () => {
    const r = rules('*.test');
    expect(() => assertAnswersAllowed(dest('a.test'), [{ address: '93.184.216.34', family: 4 }], r)).not.toThrow();
    for (const address of ['127.0.0.1', '10.0.0.5', '169.254.169.254', '100.64.0.1', '0.0.0.0', 'fd00::1', '::1', '::ffff:127.0.0.1', 'fe80::1', 'not-an-ip']) {
      expect(() => assertAnswersAllowed(dest('a.test'), [{ address: '93.184.216.34', family: 4 }, { address, family: address.includes(':') ? 6 : 4 }], r), address).toThrow(AppError);
    }
  });

  it('says which address and what to do', () => {
    let e: AppError | undefined;
    try {
      assertAnswersAllowed(dest('a.test', 8080), [{ address: '10.0.0.5', family: 4 }], rules('*.test:8080'));
    } catch (err) {
      e = err as AppError;
    }
    expect(e?.code).toBe('FORBIDDEN');
    expect(e?.message).toBe("'a.test' resolves to a private address (10.0.0.5), refused unless 'a.test' is marked as a private-network host; add 'private:a.test:8080' in Settings → Allowed hosts if you trust it");
    expect(e?.details).toMatchObject({ host: 'a.test', port: 8080, address: '10.0.0.5', kind: 'private' });
  });

  it('lets any answer through for a host marked private: (that host and port), not for one merely listed exactly', () => {
    const lan = [{ address: '192.168.1.10', family: 4 }];
    expect(() => assertAnswersAllowed(dest('nas.lan'), lan, rules('private:nas.lan'))).not.toThrow();
    expect(() => assertAnswersAllowed(dest('nas.lan.'), lan, rules('private:NAS.lan'))).not.toThrow();
    expect(() => assertAnswersAllowed(dest('a.nas.lan', 8443), lan, rules('private:*.nas.lan:8443'))).not.toThrow();
    expect(() => assertAnswersAllowed(dest('nas.lan'), lan, rules('nas.lan'))).toThrow(/private address \(192\.168\.1\.10\), refused unless 'nas\.lan' is marked as a private-network host; add 'private:nas\.lan'/);
    expect(() => assertAnswersAllowed(dest('nas.lan', 8080), lan, rules('private:nas.lan', '*.lan:8080'))).toThrow(/private/);
    // An exact entry beside the private: wildcard does not take the mark away.
    expect(() => assertAnswersAllowed(dest('a.nas.lan'), lan, rules('a.nas.lan', 'private:*.nas.lan'))).not.toThrow();
  });

  it('lets localhost listed exactly resolve to loopback only', () => {
    const r = rules('localhost:3000');
    expect(() => assertAnswersAllowed(dest('localhost', 3000), [{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }], r)).not.toThrow();
    expect(() => assertAnswersAllowed(dest('LOCALHOST.', 3000), [{ address: '127.0.0.1', family: 4 }], r)).not.toThrow();
    expect(() => assertAnswersAllowed(dest('localhost', 3000), [{ address: '127.0.0.1', family: 4 }, { address: '10.0.0.5', family: 4 }], r)).toThrow(/private address/);
    expect(() => assertAnswersAllowed(dest('localhost', 3000), [{ address: '169.254.169.254', family: 4 }], r)).toThrow(/link-local/);
    expect(() => assertAnswersAllowed(dest('localhost', 3000), [{ address: '127.0.0.1', family: 4 }], rules('*.localhost:3000', 'private:x.test:3000'))).toThrow(/loopback/);
  });
});

describe('assertLiteralAllowed', () => {
  it('checks IP hostnames (with or without brackets) and skips names', () => {
    expect(assertLiteralAllowed(dest('example.com'), [])).toBe(false);
    expect(() => assertLiteralAllowed(dest('127.0.0.1'), [])).toThrow(/loopback address \(127\.0\.0\.1\)/);
    expect(() => assertLiteralAllowed(dest('::1'), [])).toThrow(/loopback/);
    expect(() => assertLiteralAllowed(dest('[::ffff:7f00:1]'), [])).toThrow(/which is 127\.0\.0\.1/);
    expect(assertLiteralAllowed(dest('127.0.0.1', 8080), rules('127.0.0.1:8080'))).toBe(true);
    expect(assertLiteralAllowed(dest('::1', 8080), rules('[::1]:8080'))).toBe(true);
    expect(assertLiteralAllowed(dest('8.8.8.8'), [])).toBe(true);
  });
});

describe('resolveAll and resolveAndCheck', () => {
  it('turns resolver failures into UNAVAILABLE with the cause', async () => {
    const e = await rejection(resolveAll(fakeLookup({}), 'nowhere.test'));
    expect(e.code).toBe('UNAVAILABLE');
    expect(e.message).toBe("could not resolve 'nowhere.test' (ENOTFOUND): check the host name");
    expect(e.details).toMatchObject({ cause: 'ENOTFOUND' });
    const empty = await rejection(resolveAll(fakeLookup({ 'empty.test': [] }), 'empty.test'));
    expect(empty.message).toContain('resolved to no address');
    const throwing: LookupFunction = () => {
      throw Object.assign(new Error('bad'), { code: 'EINVAL' });
    };
    expect((await rejection(resolveAll(throwing, 'x.test'))).details).toMatchObject({ cause: 'EINVAL' });
  });

  it('accepts a resolver that answers one address', async () => {
    const single: LookupFunction = (_h, _o, cb) => cb(null, '93.184.216.34', 4);
    expect(await resolveAll(single, 'one.test')).toEqual([{ address: '93.184.216.34', family: 4 }]);
  });

  it('refuses a name that resolves privately under a wildcard or listed exactly, allows it marked private:', async () => {
    const lookup = fakeLookup({ 'meta.test': '169.254.169.254', 'pub.test': ['93.184.216.34', '2606:4700::1'] });
    expect((await rejection(resolveAndCheck(dest('meta.test'), rules('*.test'), lookup))).message).toContain('link-local address (169.254.169.254)');
    expect((await rejection(resolveAndCheck(dest('meta.test'), rules('meta.test'), lookup))).message).toContain('link-local address (169.254.169.254)');
    expect(await resolveAndCheck(dest('meta.test'), rules('private:meta.test'), lookup)).toEqual([{ address: '169.254.169.254', family: 4 }]);
    expect(await resolveAndCheck(dest('pub.test'), rules('*.test'), lookup)).toHaveLength(2);
    expect(await resolveAndCheck(dest('8.8.8.8'), rules('8.8.8.8'), lookup)).toEqual([]);
  });

  it('uses the system resolver for localhost', async () => {
    const e = await rejection(resolveAndCheck(dest('localhost', 3000), rules('*.localhost:3000', 'localhost:3001'), systemLookup));
    expect(e.code).toBe('FORBIDDEN');
    expect(e.message).toMatch(/'localhost' resolves to a loopback address/);
  });
});

describe('createGuardedLookup', () => {
  it('refuses an answer that turned private since the last lookup (rebinding)', async () => {
    const lookup = fakeLookup({ 'rebind.test': { turns: ['93.184.216.34', '127.0.0.1'] } });
    const guarded = createGuardedLookup(rules('*.test'), 80, 'http:', lookup);
    expect(await callLookup(guarded, 'rebind.test')).toEqual({ address: [{ address: '93.184.216.34', family: 4 }] });
    const e = await callLookup(guarded, 'rebind.test').catch((err: unknown) => err as AppError);
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).message).toContain("'rebind.test' resolves to a loopback address (127.0.0.1)");
  });

  it('answers one address or all, filtered by the family asked for', async () => {
    const lookup = fakeLookup({ 'dual.test': ['93.184.216.34', '2606:4700::1'] });
    const guarded = createGuardedLookup(rules('*.test'), 80, 'http:', lookup);
    expect(await callLookup(guarded, 'dual.test', {})).toEqual({ address: '93.184.216.34', family: 4 });
    expect(await callLookup(guarded, 'dual.test', { all: true, family: 6 })).toEqual({ address: [{ address: '2606:4700::1', family: 6 }] });
    const v4only = fakeLookup({ 'v4.test': '93.184.216.34' });
    const e = await callLookup(createGuardedLookup([], 80, 'http:', v4only), 'v4.test', { family: 6 }).catch((err: unknown) => err as NodeJS.ErrnoException);
    expect((e as NodeJS.ErrnoException).code).toBe('ENOTFOUND');
  });

  it('passes resolver failures on as UNAVAILABLE', async () => {
    const e = await callLookup(createGuardedLookup([], 80, 'http:', fakeLookup({})), 'gone.test').catch((err: unknown) => err as AppError);
    expect((e as AppError).code).toBe('UNAVAILABLE');
  });

  describe('in a real socket', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startHttpServer((_req, res) => res.end('ok'));
    });
    afterAll(() => server.close());

    const connect = (lookup: LookupFunction, autoSelectFamily: boolean) =>
      new Promise<void>((resolve, reject) => {
        const s = net.connect({ host: 'loop.test', port: server.port, lookup, autoSelectFamily });
        s.once('connect', () => {
          s.destroy();
          resolve();
        });
        s.once('error', reject);
      });

    it('opens no connection when the answer is private and the host is only wildcard-allowed', async () => {
      const lookup = fakeLookup({ 'loop.test': '127.0.0.1' });
      for (const autoSelectFamily of [true, false]) {
        const e = await connect(createGuardedLookup(rules(`*.test:${server.port}`), server.port, 'http:', lookup), autoSelectFamily).catch((err: unknown) => err);
        expect(e).toBeInstanceOf(AppError);
        expect((e as AppError).code).toBe('FORBIDDEN');
      }
      await new Promise((r) => setTimeout(r, 50));
      expect(server.accepted).toBe(0);
    });

    it('connects when the host is marked private:', async () => {
      const lookup = fakeLookup({ 'loop.test': '127.0.0.1' });
      await connect(createGuardedLookup(rules(`private:loop.test:${server.port}`), server.port, 'http:', lookup), true);
      await connect(createGuardedLookup(rules(`private:loop.test:${server.port}`), server.port, 'http:', lookup), false);
      await new Promise((r) => setTimeout(r, 50));
      expect(server.accepted).toBe(2);
    });
  });
});
