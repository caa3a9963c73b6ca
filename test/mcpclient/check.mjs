// Drives `studio-bridge mcp` with the official MCP TypeScript SDK client and
// checks every tool against a Studio whose answers are known.
//
//   node check.mjs --bin <studio-bridge> --port <bridge port> --transport stdio|http --scenario single|multi
//
// single: one Studio window in Edit mode. multi: two windows. The expected
// values come from --expect <file.json> (see expect-*.json). Prints one line
// per check and a closing "N passed, N failed"; exits 1 on any failure.
import { spawn } from "node:child_process";
import { parseArgs } from "node:util";
import { readFileSync } from "node:fs";
import { inflateSync } from "node:zlib";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const { values: opts } = parseArgs({
  options: {
    bin: { type: "string" },
    port: { type: "string" },
    transport: { type: "string", default: "stdio" },
    scenario: { type: "string", default: "single" },
    expect: { type: "string" },
  },
});
const expected = JSON.parse(readFileSync(opts.expect, "utf8"));

let passed = 0;
let failed = 0;
async function check(name, fn) {
  try {
    await fn();
    passed++;
    console.log(`ok   ${opts.transport} ${opts.scenario}: ${name}`);
  } catch (err) {
    failed++;
    console.log(`FAIL ${opts.transport} ${opts.scenario}: ${name}\n     ${String(err?.stack ?? err).split("\n").slice(0, 6).join("\n     ")}`);
  }
}

function textOf(result) {
  assert.equal(result.content.length, 1, "one content block");
  assert.equal(result.content[0].type, "text");
  return JSON.parse(result.content[0].text);
}

// decodePNG returns width, height and RGBA pixels of an 8-bit RGBA PNG
// without filters beyond the five standard ones.
function decodePNG(buf) {
  assert.equal(buf.subarray(0, 8).toString("hex"), "89504e470d0a1a0a", "PNG signature");
  let off = 8, width = 0, height = 0, colorType = 0;
  const idat = [];
  while (off < buf.length) {
    const len = buf.readUInt32BE(off);
    const type = buf.subarray(off + 4, off + 8).toString("ascii");
    const data = buf.subarray(off + 8, off + 8 + len);
    if (type === "IHDR") {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      assert.equal(data[8], 8, "8-bit depth");
      colorType = data[9];
    } else if (type === "IDAT") {
      idat.push(data);
    }
    off += 12 + len;
  }
  const bpp = colorType === 6 ? 4 : colorType === 2 ? 3 : assert.fail(`color type ${colorType}`);
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  const out = Buffer.alloc(width * height * 4);
  let prev = Buffer.alloc(stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? line[x - bpp] : 0, b = prev[x], c = x >= bpp ? prev[x - bpp] : 0;
      const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
      const paeth = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      line[x] = (line[x] + [0, a, b, (a + b) >> 1, paeth][filter]) & 0xff;
    }
    for (let x = 0; x < width; x++) {
      line.copy(out, (y * width + x) * 4, x * bpp, x * bpp + bpp);
      if (bpp === 3) out[(y * width + x) * 4 + 3] = 255;
    }
    prev = line;
  }
  return { width, height, pixels: out };
}

async function connect() {
  const client = new Client({ name: "studio-bridge-check", version: "1.0.0" });
  const args = ["mcp", "--port", opts.port];
  if (opts.transport === "stdio") {
    // An MCP client starts the server with a minimal environment: the config
    // directory travels in the config's env block, as the README's examples
    // show (without it the server would use another token than the host's
    // plugins are paired with).
    const env = { ...getDefaultEnvironment() };
    if (process.env.STUDIO_BRIDGE_CONFIG_DIR) env.STUDIO_BRIDGE_CONFIG_DIR = process.env.STUDIO_BRIDGE_CONFIG_DIR;
    await client.connect(new StdioClientTransport({ command: opts.bin, args, env, stderr: "inherit" }));
    return { client, close: () => client.close() };
  }
  const child = spawn(opts.bin, [...args, "--http", "127.0.0.1:0"], { stdio: ["ignore", "inherit", "pipe"] });
  const url = await new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`no URL on stderr: ${seen}`)), 15000);
    child.stderr.on("data", (d) => {
      seen += d;
      const m = /http:\/\/\S+\/mcp/.exec(seen);
      if (m) {
        clearTimeout(timer);
        resolve(m[0]);
      }
    });
    child.on("exit", (code) => reject(new Error(`mcp --http exited ${code}: ${seen}`)));
  });
  // As the README's client configs do: the MCP token from the
  // environment, sent as a bearer header. Without it the server answers 401.
  const token = process.env.STUDIO_BRIDGE_MCP_TOKEN;
  if (!token) throw new Error("STUDIO_BRIDGE_MCP_TOKEN is not set: mcp --http needs the MCP token");
  const bare = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" }, body: "{}" });
  if (bare.status !== 401) throw new Error(`mcp --http without the MCP token answered ${bare.status}, want 401`);
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return {
    client,
    close: async () => {
      await client.close();
      child.kill("SIGTERM");
    },
  };
}

const { client, close } = await connect();
try {
  if (opts.scenario === "single") {
    await check("lists the eleven tools with schemas", async () => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(),
        ["studio_exec", "studio_logs", "studio_play", "studio_query", "studio_screenshot", "studio_script_edit", "studio_script_grep", "studio_script_read", "studio_sessions", "studio_state", "studio_test"]);
      for (const t of tools) {
        assert.equal(t.inputSchema.type, "object", `${t.name} input schema`);
        assert.equal(t.outputSchema?.type, "object", `${t.name} output schema`);
      }
      const exec = tools.find((t) => t.name === "studio_exec");
      assert.deepEqual(exec.inputSchema.required, ["script"]);
    });
    await check("studio_sessions", async () => {
      const r = await client.callTool({ name: "studio_sessions", arguments: {} });
      assert.ok(!r.isError);
      const { sessions } = textOf(r);
      assert.equal(sessions.length, expected.sessions);
      assert.equal(sessions[0].placeName, expected.placeName);
      assert.deepEqual(r.structuredContent.sessions.map((s) => s.sessionId), sessions.map((s) => s.sessionId));
    });
    await check("studio_state", async () => {
      const r = await client.callTool({ name: "studio_state", arguments: {} });
      assert.ok(!r.isError);
      assert.deepEqual(textOf(r), expected.state);
    });
    await check("studio_query", async () => {
      const r = await client.callTool({ name: "studio_query", arguments: { path: expected.query.path } });
      assert.ok(!r.isError, JSON.stringify(r.content));
      const { instance } = textOf(r);
      assert.equal(instance.className, expected.query.className);
      assert.deepEqual(instance.properties.Position, expected.query.position);
    });
    await check("studio_query on a missing instance is an isError result", async () => {
      const r = await client.callTool({ name: "studio_query", arguments: { path: "Workspace.NonExistent" } });
      assert.equal(r.isError, true);
      assert.equal(textOf(r).error, "No instance found at path: game.Workspace.NonExistent");
    });
    await check("studio_exec runs a script and streams progress", async () => {
      const messages = [];
      const r = await client.callTool({ name: "studio_exec", arguments: { script: expected.exec.ok } }, undefined,
        { onprogress: (p) => messages.push(p.message) });
      assert.ok(!r.isError);
      const out = textOf(r);
      assert.equal(out.success, true);
      assert.deepEqual(out.logs.map((l) => l.body), expected.exec.okLines);
      assert.deepEqual(messages.map((m) => m.replace(/^\[\w+\] /, "")), expected.exec.okLines);
    });
    await check("a failing script is a result with success=false, not isError", async () => {
      const r = await client.callTool({ name: "studio_exec", arguments: { script: expected.exec.failing } });
      assert.notEqual(r.isError, true);
      const out = textOf(r);
      assert.equal(out.success, false);
      assert.match(out.error, new RegExp(expected.exec.errorPattern));
      assert.deepEqual(out.logs.map((l) => l.body), expected.exec.failingLines);
    });
    await check("studio_logs (after the scripts above printed)", async () => {
      const r = await client.callTool({ name: "studio_logs", arguments: { count: 100, direction: "head" } });
      assert.ok(!r.isError);
      const logs = textOf(r);
      for (const body of expected.logBodies) {
        assert.ok(logs.entries.some((e) => e.body === body), `log line ${JSON.stringify(body)} in ${JSON.stringify(logs.entries)}`);
      }
    });
    await check("studio_screenshot returns a PNG image block", async () => {
      const r = await client.callTool({ name: "studio_screenshot", arguments: {} });
      assert.ok(!r.isError, JSON.stringify(r.content));
      assert.equal(r.content[0].type, "image");
      assert.equal(r.content[0].mimeType, "image/png");
      const img = decodePNG(Buffer.from(r.content[0].data, "base64"));
      assert.equal(img.width, expected.screenshot.width);
      assert.equal(img.height, expected.screenshot.height);
      for (const { x, y, rgba } of expected.screenshot.pixels) {
        const i = (y * img.width + x) * 4;
        assert.deepEqual([...img.pixels.subarray(i, i + 4)], rgba, `pixel ${x},${y}`);
      }
    });
    await check("an unknown tool is JSON-RPC -32602", async () => {
      await assert.rejects(
        client.callTool({ name: "studio_nope", arguments: {} }),
        (err) => err.code === -32602 && err.message.includes("Unknown tool: studio_nope"),
      );
    });
    await check("invalid input is a tool error the model reads (SEP-1303)", async () => {
      const r = await client.callTool({ name: "studio_logs", arguments: { count: "ten" } });
      assert.equal(r.isError, true);
      assert.match(JSON.parse(r.content[0].text).error, /^Invalid input: count must be a whole number/);
    });
    await check("the sessions resource", async () => {
      const { resources } = await client.listResources();
      assert.ok(resources.some((r) => r.uri === "studio://sessions"));
      const res = await client.readResource({ uri: "studio://sessions" });
      assert.equal(JSON.parse(res.contents[0].text).sessions.length, expected.sessions);
    });
  } else {
    await check("two Studio windows: multiple-instances error, then success with sessionId", async () => {
      const r = await client.callTool({ name: "studio_state", arguments: {} });
      assert.equal(r.isError, true);
      const body = textOf(r);
      assert.equal(body.error, "Multiple Studio instances connected. Specify a sessionId.");
      assert.equal(body.sessions.length, 2);
      const ok = await client.callTool({ name: "studio_state", arguments: { sessionId: body.sessions[1].sessionId } });
      assert.ok(!ok.isError);
      assert.equal(textOf(ok).state, "Edit");
    });
  }
} finally {
  await close();
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
