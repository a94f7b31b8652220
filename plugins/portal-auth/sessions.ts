/**
 * The portal's sign-in sessions, in process memory. A session id is 32 random bytes sent once
 * in the cookie and kept here only as its SHA-256 digest, so a heap dump or a log of this map
 * cannot be replayed as a cookie. Each session carries its own CSRF token and an absolute
 * expiry; expired sessions are dropped as they are met and on every sign-in. Sessions do not
 * survive a restart (operators sign in again) and are not shared between replicas: the portal
 * is an operator's tool, served by whichever replica the operator reaches (docs/decisions.md).
 * The table is the plugin's state: one per process, kept across hot reloads.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

export interface PortalSession {
  readonly csrfToken: string
  readonly expiresAt: number
}

const digest = (id: string) => createHash('sha256').update(id).digest('hex')

/** Compares two strings in constant time (for equal lengths; a length mismatch is a plain no). */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

export class PortalSessions {
  private readonly byDigest = new Map<string, PortalSession>()

  /** Opens a session; returns its id (for the cookie, never stored) and the session. At most `maxSessions` are kept. */
  open(ttlMs: number, now: number, maxSessions: number): { id: string; session: PortalSession } {
    this.prune(now)
    // Bounded: the oldest sessions give way rather than memory growing with sign-ins.
    while (this.byDigest.size >= maxSessions) this.byDigest.delete(this.byDigest.keys().next().value!)
    const id = randomBytes(32).toString('base64url')
    const session = { csrfToken: randomBytes(32).toString('base64url'), expiresAt: now + ttlMs }
    this.byDigest.set(digest(id), session)
    return { id, session }
  }

  /** The live session of a cookie's id, or undefined (unknown or expired). */
  find(id: string, now: number): PortalSession | undefined {
    const key = digest(id)
    const session = this.byDigest.get(key)
    if (session && session.expiresAt <= now) {
      this.byDigest.delete(key)
      return undefined
    }
    return session
  }

  /** Ends a session (sign-out). Not `close`: the table is the plugin's state, which the kernel would close at shutdown. */
  end(id: string): void {
    this.byDigest.delete(digest(id))
  }

  private prune(now: number): void {
    for (const [key, s] of this.byDigest) if (s.expiresAt <= now) this.byDigest.delete(key)
  }
}
