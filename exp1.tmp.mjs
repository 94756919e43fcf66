import Ajv2020 from 'ajv/dist/2020.js';
const mk = () => new Ajv2020({ strict: false, allErrors: false, logger: false, addUsedSchema: false, validateFormats: false });
let t = performance.now();
const ajv = mk();
console.log('construct', performance.now() - t);
function tryc(name, s) {
  const t = performance.now();
  try { const v = ajv.compile(s); console.log(name, 'compiled', (performance.now() - t).toFixed(1)); try { console.log(' validate', v({a:{a:1}})); } catch (e) { console.log(' validate threw', e.message.slice(0,100)); } }
  catch (e) { console.log(name, 'threw', (performance.now() - t).toFixed(1), e.message.slice(0, 150)); }
}
tryc('self', { $ref: '#' });
tryc('cycle2', { $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' });
tryc('cycle-in-prop', { type: 'object', properties: { a: { $ref: '#' } } });
tryc('remote', { $ref: 'http://example.com/x.json' });
tryc('badtype', { type: 'strng' });
tryc('dynref', { $dynamicAnchor: 'x', $dynamicRef: '#x' });
tryc('id1', { $id: 'http://x/a', type: 'object' });
tryc('id1 again', { $id: 'http://x/a', type: 'object' });
tryc('unknownkw', { type: 'object', foo: 1, format: 'uri', properties: {u: {type:'string', format:'email'}} });
// wide
const wide = { type: 'object', properties: {} };
for (let i = 0; i < 5000; i++) wide.properties['p' + i] = { type: 'string', minLength: 1, pattern: '^a+$' };
console.log('wide size', JSON.stringify(wide).length);
tryc('wide', wide);
// deep-ish 60
let d = { type: 'string' };
for (let i = 0; i < 60; i++) d = { type: 'object', properties: { a: d, b: d } };
console.log('deep60 dag size', (()=>{try{return JSON.stringify(d).length}catch(e){return e.message}})());
let d2 = { type: 'string' };
for (let i = 0; i < 60; i++) d2 = { anyOf: [d2, {type:'null'}] };
tryc('deep60', d2);
// many anyOf with refs
const defs = {}; for (let i=0;i<2000;i++) defs['d'+i] = { anyOf: [{ $ref: '#/$defs/d' + ((i+1)%2000) }, { type: 'integer' }] };
tryc('refring', { $defs: defs, $ref: '#/$defs/d0' });
