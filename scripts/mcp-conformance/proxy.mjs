// A loopback reverse proxy for the MCP conformance suite, which sends no
// headers of its own: it adds `Authorization: Bearer $STUDIO_BRIDGE_MCP_TOKEN`
// to every request and forwards it, Host and Origin untouched (the server
// still checks them), to the `studio-bridge mcp --http` address. Responses,
// event streams included, are streamed back as they come.
//
//   node proxy.mjs <listen-port> <target-host:port>
import http from 'node:http'

const [listenPort, target] = process.argv.slice(2)
const token = process.env.STUDIO_BRIDGE_MCP_TOKEN
if (!listenPort || !target || !token) {
  console.error('usage: STUDIO_BRIDGE_MCP_TOKEN=… node proxy.mjs <listen-port> <target-host:port>')
  process.exit(2)
}
const [targetHost, targetPort] = target.split(':')

const server = http.createServer((req, res) => {
  const headers = { ...req.headers, authorization: `Bearer ${token}` }
  const up = http.request({ host: targetHost, port: Number(targetPort), method: req.method, path: req.url, headers }, (upRes) => {
    res.writeHead(upRes.statusCode, upRes.headers)
    upRes.pipe(res)
  })
  up.setTimeout(120_000, () => up.destroy(new Error('upstream timed out')))
  up.on('error', (err) => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' })
    res.end(`proxy: ${err.message}\n`)
  })
  req.pipe(up)
  res.on('close', () => up.destroy())
})
server.listen(Number(listenPort), '127.0.0.1', () => console.error(`proxy: 127.0.0.1:${listenPort} → ${target} (bearer added)`))
