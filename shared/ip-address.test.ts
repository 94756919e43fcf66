import { describe, expect, it } from 'vitest';
import { classifyAddress, describeKind, ipLiteralOfHostname, isPublicAddress, parseIpLiteral } from './ip-address';

describe('parseIpLiteral (WHATWG URL spellings)', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['0x7F000001', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['127.0.1', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['0x7f.0.0.1', '127.0.0.1'],
    ['127.0.0.1.', '127.0.0.1'],
    ['%31%32%37.0.0.1', '127.0.0.1'],
    ['１２７.0.0.1', '127.0.0.1'],
    ['0', '0.0.0.0'],
    ['0.0.0.0', '0.0.0.0'],
    ['169.254.169.254', '169.254.169.254'],
    ['0xa9fea9fe', '169.254.169.254'],
    ['100.64.0.1', '100.64.0.1'],
  ])('%s is the IPv4 address %s', (spelling, address) => {
    expect(parseIpLiteral(spelling)).toEqual({ address, family: 4 });
  });

  it.each([
    ['[::1]', '::1'],
    ['[0:0:0:0:0:0:0:1]', '::1'],
    ['[::ffff:127.0.0.1]', '::ffff:7f00:1'],
    ['[::FFFF:7F00:1]', '::ffff:7f00:1'],
    ['[fd00::1]', 'fd00::1'],
    ['[FE80::1]', 'fe80::1'],
  ])('%s is the IPv6 address %s', (spelling, address) => {
    expect(parseIpLiteral(spelling)).toEqual({ address, family: 6 });
  });

  it('gives undefined for names and for hosts URL refuses', () => {
    for (const h of ['example.com', 'allowed.com.evil.com', '1.2.3.test', 'localhost', '0x100000000', '08.1', 'x.0.0.1', 'a/b', 'evil@127.0.0.1', '']) {
      expect(parseIpLiteral(h), h).toBeUndefined();
    }
  });

  it('reads URL hostnames, brackets and a trailing dot included', () => {
    expect(ipLiteralOfHostname('127.0.0.1')).toEqual({ address: '127.0.0.1', family: 4 });
    expect(ipLiteralOfHostname('[::1]')).toEqual({ address: '::1', family: 6 });
    expect(ipLiteralOfHostname('::1')).toBeUndefined();
    expect(ipLiteralOfHostname('example.com.')).toBeUndefined();
    expect(ipLiteralOfHostname('127.1')).toBeUndefined(); // not what URL gives: callers normalise first
  });
});

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.5', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['8.8.8.8', 'public'],
    ['172.32.0.1', 'public'],
    ['100.128.0.1', 'public'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fd00::1', 'private'],
    ['fc00::1', 'private'],
    ['fec0::1', 'private'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['2001::1', 'reserved'],
    ['100::1', 'reserved'],
    ['::7f00:1', 'reserved'],
    ['2606:4700:4700::1111', 'public'],
    ['[2606:4700:4700::1111]', 'public'],
  ])('%s is %s', (address, kind) => {
    expect(classifyAddress(address)?.kind).toBe(kind);
    expect(isPublicAddress(address)).toBe(kind === 'public');
  });

  it('judges IPv6 forms that carry an IPv4 address by that address', () => {
    expect(classifyAddress('::ffff:127.0.0.1')).toMatchObject({ kind: 'loopback', range: 'ipv4Mapped', embeddedIpv4: '127.0.0.1', address: '::ffff:7f00:1' });
    expect(classifyAddress('::ffff:a9fe:a9fe')).toMatchObject({ kind: 'link-local', embeddedIpv4: '169.254.169.254' });
    expect(classifyAddress('::ffff:8.8.8.8')).toMatchObject({ kind: 'public', embeddedIpv4: '8.8.8.8' });
    expect(classifyAddress('64:ff9b::10.0.0.1')).toMatchObject({ kind: 'private', range: 'rfc6052', embeddedIpv4: '10.0.0.1' });
    expect(classifyAddress('64:ff9b::8.8.8.8')).toMatchObject({ kind: 'public' });
    expect(classifyAddress('64:ff9b:1::1')).toMatchObject({ kind: 'reserved' });
    expect(classifyAddress('2002:7f00:1::1')).toMatchObject({ kind: 'loopback', range: '6to4', embeddedIpv4: '127.0.0.1' });
    expect(classifyAddress('::ffff:0:127.0.0.1')).toMatchObject({ kind: 'loopback', range: 'rfc6145' });
  });

  it('classifies the URL spellings too', () => {
    for (const s of ['2130706433', '0x7f.1', '127.1', '0177.0.0.1']) expect(classifyAddress(s)).toMatchObject({ address: '127.0.0.1', kind: 'loopback' });
  });

  it('is undefined for names and garbage', () => {
    for (const s of ['example.com', 'localhost', '', '1.2.3.4.5', ':::', 'fe80::zz']) expect(classifyAddress(s), s).toBeUndefined();
    expect(isPublicAddress('example.com')).toBe(false);
  });

  it('describes kinds for people', () => {
    expect(describeKind('private')).toBe('a private address');
    expect(describeKind('cgnat')).toContain('carrier-grade NAT');
  });
});
