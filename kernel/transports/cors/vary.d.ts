/** `vary` (Koa's own `ctx.vary`): adds a field to a response's Vary header once; the package ships no types. */
declare module 'vary' {
  import type { ServerResponse } from 'node:http'
  function vary(res: ServerResponse, field: string): void
  export default vary
}
