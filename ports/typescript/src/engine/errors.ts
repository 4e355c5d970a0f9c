/** The error a malformed scenario raises (ENG-23). */

/** A scenario that is not well formed; the message names the offending part (ENG-23). */
export class ScenarioError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScenarioError';
  }
}
