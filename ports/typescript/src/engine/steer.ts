/** The steer queue: messages waiting for the next follow-up dispatch (ENG-63 … ENG-68). */

/** De-duplicated by exact text while queued; forgotten once flushed (ENG-64). */
export class SteerQueue {
  private messages: string[] = [];

  /** Queue a message unless an equal string is already queued (ENG-63, ENG-64). */
  add(message: string): void {
    if (!this.messages.includes(message)) this.messages.push(message);
  }

  /** Re-queue a restored `pendingSteer`: strings only, in order (ENG-171). */
  requeue(pending: unknown): void {
    if (!Array.isArray(pending)) return;
    for (const message of pending) if (typeof message === 'string') this.add(message);
  }

  /** Empty the queue into one text joined by a line feed; undefined when empty (ENG-66). */
  flush(): string | undefined {
    if (this.messages.length === 0) return undefined;
    const joined = this.messages.join('\n');
    this.messages = [];
    return joined;
  }

  /** The `pendingSteer` copy, or undefined when the queue is empty (ENG-68, ENG-114). */
  persisted(): string[] | undefined {
    return this.messages.length > 0 ? [...this.messages] : undefined;
  }
}
