import { describe, expect, it } from 'vitest';
import { AllowedHostSchema } from './settings';
import { allowedHostProblems, describeAllowedHostProblem, explainAllowedHost } from './allowed-hosts';

describe('allowed-host entries said for a person', () => {
  it('accepts what the schema accepts', () => {
    for (const ok of ['api.example.com', '*.example.com', 'example.com:8443', 'private:10.0.0.5', '[::1]:8080', 'private:*.corp.local']) {
      expect(AllowedHostSchema.safeParse(ok).success, ok).toBe(true);
      expect(explainAllowedHost(ok), ok).toBeNull();
    }
  });

  it('turns a pasted URL into its host, keeping the port and the private: prefix', () => {
    expect(explainAllowedHost('https://api.example.com/v1/users?x=1')).toEqual({ message: 'a URL was pasted; keep only the host', suggestion: 'api.example.com' });
    expect(explainAllowedHost('http://localhost:8080/')).toEqual({ message: 'a URL was pasted; keep only the host', suggestion: 'localhost:8080' });
    expect(explainAllowedHost('private:http://10.0.0.5:9000/x')?.suggestion).toBe('private:10.0.0.5:9000');
  });

  it('says what else is wrong', () => {
    expect(explainAllowedHost('api.example.com/v1')).toEqual({ message: 'a path was included; keep only the host', suggestion: 'api.example.com' });
    expect(explainAllowedHost('two hosts.com')?.message).toMatch(/no spaces/);
    expect(explainAllowedHost('api.*.example.com')?.message).toMatch(/wildcard may only be the first label/);
    expect(explainAllowedHost('::1')).toEqual({ message: 'an IPv6 address goes in square brackets', suggestion: '[::1]' });
    expect(explainAllowedHost('user@host.com')?.message).toMatch(/user names/);
    expect(explainAllowedHost('bad_host!')?.message).toMatch(/not a host name/);
  });

  it('names the line of each refused entry and the fix', () => {
    const problems = allowedHostProblems(['api.example.com', 'https://api.github.com/repos', 'ok.org']);
    expect(problems).toHaveLength(1);
    expect(describeAllowedHostProblem(problems[0]!)).toBe('Line 2, “https://api.github.com/repos”: a URL was pasted; keep only the host — write api.github.com.');
  });
});
