import { getEventListeners } from 'node:events';
import { expect } from 'chai';
import { AcquireAbortedError, ResourcePool } from '../src/scheduler/resource-pool.js';

describe('ResourcePool', () => {
  it('hands resources out first come, first served', async () => {
    const pool = new ResourcePool(['only']);
    const first = await pool.acquire();
    const order: string[] = [];
    const second = pool.acquire().then(() => order.push('second'));
    const third = pool.acquire().then(() => order.push('third'));
    pool.release(first);
    await second;
    pool.release('only');
    await third;
    expect(order).to.deep.equal(['second', 'third']);
  });

  it('rejects an aborted waiter and skips it', async () => {
    const pool = new ResourcePool([1]);
    const held = await pool.acquire();
    const controller = new AbortController();
    const abandoned = pool.acquire(controller.signal);
    const patient = pool.acquire();
    controller.abort();
    let failure: unknown;
    await abandoned.catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(AcquireAbortedError);
    pool.release(held);
    expect(await patient).to.equal(1);
  });

  it('leaves no listener on a long-lived signal once a wait is over', async () => {
    const pool = new ResourcePool([1]);
    const stream = new AbortController();
    for (let i = 0; i < 20; i++) {
      const held = await pool.acquire();
      const waiting = pool.acquire(stream.signal);
      pool.release(held);
      pool.release(await waiting);
    }
    expect(getEventListeners(stream.signal, 'abort')).to.have.length(0);
  });
});
