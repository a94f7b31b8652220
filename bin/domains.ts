/** The domains the gateway opens at start, in order (each one's stores beside the kernel's). */
import type { DomainDefinition } from '../kernel/contract/index.js'
import { queryDomain } from '../domains/query/index.js'

export const builtinDomains: readonly DomainDefinition[] = [queryDomain]
