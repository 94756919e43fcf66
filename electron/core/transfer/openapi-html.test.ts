/** HTML descriptions as text (openapi/html-text.ts), alone and through the importer. */
import { describe, expect, it } from 'vitest';
import { HTML_INPUT_MAX, htmlToText } from './openapi/html-text';
import { parseOpenApi } from './openapi';

describe('HTML descriptions as text', () => {
  it('keeps paragraphs, code and links readable', () => {
    expect(
      htmlToText(
        '<p>Returns transactions.</p>\n\n<p>Previously called “Balance history”, at <code>/v1/balance/history</code>. See <a href="/docs/balances">Balances</a>.</p>',
      ),
    ).toBe('Returns transactions.\n\nPreviously called “Balance history”, at `/v1/balance/history`. See [Balances](/docs/balances).');
  });

  it('turns lists, line breaks, pre blocks and entities into text', () => {
    expect(htmlToText('<b>Scope</b>: <code>tasks:read</code><ul><li>one &amp; two</li><li>&lt;three&gt;</li></ul>')).toBe('Scope: `tasks:read`\n\n- one & two\n- <three>');
    expect(htmlToText('line one<br>line two<br/>line&#160;three')).toBe('line one\nline two\nline\u00a0three');
    expect(htmlToText('<pre>curl -X GET\n  https://x</pre>')).toBe('```\ncurl -X GET\n  https://x\n```');
    expect(htmlToText('<a href="https://x.example/a">https://x.example/a</a>')).toBe('https://x.example/a');
    expect(htmlToText('<a href="javascript:alert(1)">click</a>')).toBe('click');
  });

  it('leaves text without HTML tags as it is', () => {
    for (const s of ['Markdown **bold** and `code`', 'Returns Array<string> when a < b', 'a &amp; b in plain text', '  spaced\n\n\n\nlines  '])
      expect(htmlToText(s)).toBe(s);
  });

  it('is applied to the descriptions of operations, parameters and body properties', () => {
    const doc = {
      openapi: '3.0.3',
      info: { title: 'Html', version: '1' },
      servers: [{ url: 'https://api.html.example' }],
      paths: {
        '/items': {
          post: {
            operationId: 'createItem',
            description: '<p>Creates an <code>item</code>.</p>',
            parameters: [{ name: 'expand', in: 'query', description: '<p>Fields to <strong>expand</strong>.</p>', schema: { type: 'string' } }],
            requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { name: { type: 'string', description: 'The <em>name</em>.' } } } } } },
            responses: { '200': { description: 'ok' } },
          },
        },
      },
    };
    const op = parseOpenApi(JSON.stringify(doc)).operations[0]!;
    const tool = op.tool as { description: string; argSchema: { properties: Record<string, { description?: string }> } };
    expect(tool.description).toBe('Creates an `item`.');
    expect(tool.argSchema.properties.expand?.description).toBe('Fields to expand.');
    expect(tool.argSchema.properties.name?.description).toBe('The name.');
  });
});

describe('HTML descriptions from a hostile document', () => {
  it('reads at most HTML_INPUT_MAX characters of one, whatever its length', () => {
    const huge = '<pre></pre>\n x\n'.repeat(100_000) + '<p>the end</p>';
    const out = htmlToText(huge);
    expect(out.length).toBeLessThanOrEqual(HTML_INPUT_MAX);
    expect(out).not.toContain('the end');
    const links = htmlToText('<a href="u">x</a>'.repeat(50_000));
    expect(links.startsWith('[x](u)[x](u)')).toBe(true);
    expect(links.length).toBeLessThanOrEqual(HTML_INPUT_MAX);
  });

  it('drops a link whose address is script, however it is spelt', () => {
    for (const href of ['javascript:alert(1)', '&#106;avascript:alert(1)', ' java\tscript:alert(1)', 'JaVaScRiPt&#58;alert(1)', 'data:text/html,x', 'vbscript:x']) {
      expect(htmlToText(`<p><a href="${href}">click</a></p>`), href).toBe('click');
    }
    expect(htmlToText('<p><a href="https://example.com/a?b=1&amp;c=2">docs</a></p>')).toBe('[docs](https://example.com/a?b=1&c=2)');
  });
});
