// Owns closing the leveldb iterators dynalite opens. dynalite 4.0.0 reads every Query, Scan and ListTables through a
// stream whose destroy calls `iterator.return()` if there is one, and never `close()`; the iterators of
// abstract-level 3 (classic-level on disk, memory-level in memory) have `close()` and no `return()`. So no iterator
// was ever closed: each read left a native leveldb iterator (its read-ahead buffer, the memtable and files it pins)
// and its JavaScript object in the database's open resources until the database closed. Under `npm start`'s
// steady load that was most of the resident growth (RELIABILITY.md, the soak). Giving the iterators the `return()`
// dynalite asks for closes each one when its stream ends or is cut short, as dynalite meant. Plain JavaScript:
// dynalite's worker thread loads it without tsx.
import { AbstractIterator, AbstractKeyIterator, AbstractValueIterator } from 'abstract-level';

for (const Iterator of [AbstractIterator, AbstractKeyIterator, AbstractValueIterator]) {
  if (typeof Iterator.prototype.return !== 'function') {
    Object.defineProperty(Iterator.prototype, 'return', {
      value() {
        return this.close();
      },
      configurable: true,
      writable: true,
    });
  }
}
