// npm run generate: src/openapi.ts, the API's types, made from hitl's OpenAPI document by
// openapi-typescript. Two choices make the types usable for requests:
//   - a field with a default stays optional (the server fills it in), and a schema with no
//     properties (a JSON Schema the caller gives, say) is unknown, not an empty object;
//   - an anyOf whose members only list required fields (InquiryRequest: "prompt or
//     template") is a rule TypeScript cannot say plainly: openapi-typescript would turn the
//     whole type into unknown, so the rule is left to the server, which explains it in a 422.
// It also writes src/openapi-fields.ts, the names of the fields an inquiry request may have, for
// the adapters to tell a misspelt option from a field at run time (types are gone by then).
// With --check it writes nothing and fails when either file is not what it would write.
import openapiTS, { astToString } from "openapi-typescript";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const pkg = join(dirname(fileURLToPath(import.meta.url)), "..");
const documentPath = join(pkg, "..", "..", "httpapi", "openapi.json");
const outPath = join(pkg, "src", "openapi.ts");
const fieldsPath = join(pkg, "src", "openapi-fields.ts");
const header = "/**\n * Generated from httpapi/openapi.json by scripts/generate.mjs (npm run generate).\n * Do not edit: change the document and regenerate.\n */\n\n";

function onlyRequired(schema) {
  return Object.keys(schema).every((k) => k === "required");
}

function dropRequiredOnlyAnyOf(node) {
  if (Array.isArray(node)) return node.forEach(dropRequiredOnlyAnyOf);
  if (node === null || typeof node !== "object") return;
  if (Array.isArray(node.anyOf) && node.properties && node.anyOf.every(onlyRequired)) delete node.anyOf;
  Object.values(node).forEach(dropRequiredOnlyAnyOf);
}

export async function generate() {
  const document = JSON.parse(readFileSync(documentPath, "utf8"));
  dropRequiredOnlyAnyOf(document);
  const ast = await openapiTS(document, { defaultNonNullable: false, emptyObjectsUnknown: true });
  return header + astToString(ast);
}

/** generateFields makes src/openapi-fields.ts: the property names of InquiryRequest. */
export function generateFields() {
  const document = JSON.parse(readFileSync(documentPath, "utf8"));
  const properties = document.components?.schemas?.InquiryRequest?.properties;
  if (!properties) throw new Error("httpapi/openapi.json has no components.schemas.InquiryRequest.properties");
  const names = Object.keys(properties).map((n) => `  ${JSON.stringify(n)},`).join("\n");
  return header + "/** The fields of an inquiry request (InquiryRequest), in the document's order. */\n" +
    `export const inquiryRequestFields: readonly string[] = [\n${names}\n];\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outputs = [[outPath, await generate()], [fieldsPath, generateFields()]];
  for (const [path, text] of outputs) {
    if (!process.argv.includes("--check")) writeFileSync(path, text);
    else if (readFileSync(path, "utf8") !== text) {
      console.error(`httpapi/openapi.json changed but src/${path.split("/").at(-1)} was not regenerated: run \`npm run generate\` in clients/typescript`);
      process.exit(1);
    }
  }
}
