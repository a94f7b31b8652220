/**
 * The lexical leg's words: stop words out (the same list PostgreSQL's 'english' drops), each
 * word once. What the stores do with them is in store-contract.test.ts.
 */
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { ftsQuery } from '../../../../domains/query/knowledge/sqlite-knowledge.js'
import { searchTerms, STOP_WORDS } from '../../../../domains/query/knowledge/search-terms.js'

const test = suite('knowledge search terms')

test('stop words out, lower case, each word once, in query order', () => {
  assert.equal(searchTerms('How do I make a Column AUTOINCREMENT, and is the column unique?'), [
    'make',
    'column',
    'autoincrement',
    'unique',
  ])
  assert.equal(searchTerms('IS NULL'), ['null'])
  assert.equal(STOP_WORDS.size, 127)
})

test('a query of stop words only (or of no words) has no terms, and no FTS5 query', () => {
  for (const q of ['the', 'What is it?', "don't", '', '"*"()']) {
    assert.equal(searchTerms(q), [], q)
    assert.is(ftsQuery(q), '', q)
  }
})

test('FTS5 query: every term quoted, OR-ed; operators in user text stay words', () => {
  assert.is(ftsQuery('the gateway NEAR logs OR x*'), '"gateway" OR "near" OR "logs" OR "x"')
})

test.run()
