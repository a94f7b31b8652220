/** A Lua script as ioredis runs it: defined once on a connection, then called by EVALSHA (EVAL when Redis lost it). */
import type { Redis } from 'ioredis'

/** A defined script: the number of KEYS, then the keys and the arguments. */
export type Script = (numKeys: number, ...args: (string | number)[]) => Promise<unknown>

export function defineScript(redis: Redis, command: string, lua: string): Script {
  redis.defineCommand(command, { lua })
  // ioredis adds the command as a method of the connection; its types cannot know the name.
  return (redis as unknown as Record<string, Script>)[command]!.bind(redis)
}
