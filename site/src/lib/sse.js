// A small Server-Sent Events reader over fetch. EventSource would do, but it
// reconnects by itself when the server closes the stream after the result,
// and names connection failures "error" just like the server's own `error`
// event; reading the stream ourselves keeps both unambiguous.

/**
 * Splits an SSE byte stream into messages and passes on each one's data.
 * The server also names each event (`event:`), but its data carries the
 * same type, so only the data is read.
 */
function createSseParser(onData) {
  let buffer = '';
  return (chunk) => {
    buffer += chunk.replace(/\r\n?/g, '\n');
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue; // keep-alive comment
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') data.push(value);
      }
      if (data.length) onData(data.join('\n'));
    }
  };
}

/**
 * Reads `url` as an event stream until it ends or `signal` aborts, calling
 * `onEvent` with each message's parsed JSON data.
 */
export async function readEvents(url, onEvent, signal) {
  const res = await fetch(url, { headers: { accept: 'text/event-stream' }, cache: 'no-store', signal });
  if (!res.ok || !res.body) throw new Error(`the workbook server answered ${res.status}`);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  const parse = createSseParser((data) => onEvent(JSON.parse(data)));
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    parse(value);
  }
}
