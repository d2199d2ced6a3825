/** The contract lacks something a check needs: the kit reports it instead of guessing. */
export class ContractGap extends Error {
  override name = 'ContractGap';
}
