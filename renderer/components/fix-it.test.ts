import { describe, expect, it } from 'vitest';
import { fixItFor, hostEntry } from './fix-it';

describe('fixItFor', () => {
  it('a secret that is not set: Secrets with its name, and the host the request went to', () => {
    expect(fixItFor({ code: 'NOT_FOUND', message: "no secret named 'API_KEY'", details: { secret: 'API_KEY', http: { url: 'https://api.example.com/v1/x' } } })).toEqual({
      kind: 'secret',
      name: 'API_KEY',
      hosts: ['api.example.com'],
      reason: 'missing',
    });
  });

  it('reads the name from the message when the details do not carry it', () => {
    expect(fixItFor({ code: 'NOT_FOUND', message: "no secret named 'TOKEN'" })).toEqual({ kind: 'secret', name: 'TOKEN', hosts: [], reason: 'missing' });
  });

  it('a secret not bound to the host: its hosts and the new one', () => {
    expect(
      fixItFor({ code: 'FORBIDDEN', message: "secret 'API_KEY' is not bound to host 'b.example.com'", details: { secret: 'API_KEY', host: 'b.example.com', hosts: ['a.example.com'] } }),
    ).toEqual({ kind: 'secret', name: 'API_KEY', hosts: ['a.example.com', 'b.example.com'], reason: 'unbound' });
  });

  it('a host not allowed: the entry to add, with its port only when it is not the default', () => {
    const message = "host 'api.example.com' is not in the allowed hosts; add it in Settings → Allowed hosts";
    expect(fixItFor({ code: 'FORBIDDEN', message, details: { host: 'api.example.com', port: 443 } })).toEqual({ kind: 'host', entry: 'api.example.com' });
    expect(fixItFor({ code: 'FORBIDDEN', message, details: { host: '127.0.0.1', port: 8080 } })).toEqual({ kind: 'host', entry: '127.0.0.1:8080' });
  });

  it('no fix for other errors', () => {
    expect(fixItFor({ code: 'NOT_FOUND', message: 'no tool named x' })).toBeNull();
    expect(fixItFor({ code: 'FORBIDDEN', message: "the scheme 'ftp' is refused", details: { scheme: 'ftp:' } })).toBeNull();
    expect(fixItFor({ code: 'TIMEOUT', message: 'timed out', details: { host: 'a.example.com' } })).toBeNull();
  });
});

describe('hostEntry', () => {
  it('keeps a port that is not the default', () => {
    expect(hostEntry('a.example.com', 80)).toBe('a.example.com');
    expect(hostEntry('a.example.com', undefined)).toBe('a.example.com');
    expect(hostEntry('a.example.com', 8443)).toBe('a.example.com:8443');
  });
});
