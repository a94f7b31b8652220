/** The one function of `mime-types` (Koa's own content-type rule) that the kernel uses; the package ships no types. */
declare module 'mime-types' {
  export function contentType(type: string): string | false
}
