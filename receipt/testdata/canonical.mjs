// Writes canonical.json: inputs, their RFC 8785 (JSON Canonicalization Scheme) form and its
// SHA-256, computed by JavaScript's own JSON, which RFC 8785 is defined by. The Go, Python and
// TypeScript receipt verifiers test their canonical form against it.
// Run: node receipt/testdata/canonical.mjs > receipt/testdata/canonical.json
import { createHash } from 'node:crypto';
// The canonical form is JSON.stringify of the parsed value with object members sorted by UTF-16 code units.
function canon(v){
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return '[' + v.map(canon).join(',') + ']';
  return '{' + Object.keys(v).sort().map(k => JSON.stringify(k) + ':' + canon(v[k])).join(',') + '}';
}
const inputs = [
  '{}', '[]', 'null', 'true', '"a"', '0', '-0', '1', '-1', '1.0', '1.5', '100', '1e2', '1E+2',
  '0.1', '0.000001', '0.0000001', '1e-7', '123456789012345680000', '1e21', '1e+21', '9007199254740993',
  '4.5', '2e-3', '333333333.33333329', '1E30', '-1.2345e-10', '5e-324', '1.7976931348623157e308',
  '{"b":2,"a":1}', '{"a":{"z":[3,{"y":1,"x":2}],"b":null}}',
  '{"peach":"This sorting order","péché":"is wrong according to French","pêche":"but canonicalization MUST","sin":"ignore locale"}',
  '{"\\u20ac":"Euro Sign","\\r":"Carriage Return","\\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\\ud83d\\ude00":"Emoji: Grinning Face","\\u0080":"Control","\\u00f6":"Latin Small Letter O With Diaeresis"}',
  '"\\u0000\\u0001\\u001f\\u007f\\b\\t\\n\\f\\r\\"\\\\/"', '"\\u00e9\\u2028\\u2029"',
  '{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}',
  '{"env":"prod","replicas":3,"image":"api:1.4.2","tags":["a","b"]}',
  ' { "spaced" : [ 1 , 2 ] , "x" : { } } ',
];
const out = inputs.map(s => { const c = canon(JSON.parse(s)); return {input: s, canonical: c, sha256: createHash('sha256').update(c, 'utf8').digest('hex')}; });
process.stdout.write(JSON.stringify(out, null, 1) + '\n');
