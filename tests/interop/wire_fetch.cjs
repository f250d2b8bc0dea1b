// Sends stamped requests with Node's own fetch (undici) for tests/test_wire_clients.py.
// Input (argv[2]): a JSON file with a list of {url, headers, body (base64), stream}; a
// streamed body goes as a ReadableStream of 16 KiB pieces (chunked), else in one piece.
// Requests go one after the other (undici keeps the connection alive). Output: a JSON list
// of {status, body} (the answer's text).
const fs = require("fs");

async function main() {
  const requests = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
  const results = [];
  for (const r of requests) {
    const bytes = Buffer.from(r.body, "base64");
    let body = new Uint8Array(bytes);
    const init = { method: "POST", headers: r.headers };
    if (r.stream) {
      let at = 0;
      body = new ReadableStream({
        pull(controller) {
          if (at >= bytes.length) return controller.close();
          controller.enqueue(new Uint8Array(bytes.subarray(at, at + 16384)));
          at += 16384;
        },
      });
      init.duplex = "half";
    }
    init.body = body;
    const answer = await fetch(r.url, init);
    results.push({ status: answer.status, body: await answer.text() });
  }
  process.stdout.write(JSON.stringify(results));
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack ? err.stack : err));
  process.exit(1);
});
