'use strict';
// The yardstick of lab 14's check: an empty Node start. A server that
// listens and answers, with nothing else to load or do; the check starts it
// exactly as it starts your app (the same node, the same flags, the same
// probe), alternately with it, and measures both from spawn to answer.
const http = require('node:http');

const server = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
});
server.listen(Number(process.env.PORT ?? 3000), process.env.HOST || '127.0.0.1');
