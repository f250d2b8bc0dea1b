// Helpers of our example mirrors: what Turnkey's examples' util.ts files do (print a header
// and an indented body; assert two values are equal), written for these scripts.
import * as path from "node:path";
import * as dotenv from "dotenv";

export function loadEnv() {
  // The examples read `.env.local` from the working directory.
  dotenv.config({ path: path.resolve(process.cwd(), ".env.local") });
}

export function print(header, body) {
  console.log(`${header}\n\t${body}\n`);
}

export function assertEqual(left, right) {
  if (left !== right) {
    throw new Error(`${JSON.stringify(left)} !== ${JSON.stringify(right)}`);
  }
}

export function required(value, what) {
  if (value == null) throw new Error(`Unexpected ${JSON.stringify(value)} for ${what}`);
  return value;
}

export function run(main) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
