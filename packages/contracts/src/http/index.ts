// `@retry-safe/contracts/http`: the wire conventions of every HTTP service here, business-free, so provider-sim
// (an external system) can use them without importing its callers' contracts.
export { ChainHeader } from './headers.js';
export {
  PROBLEM_CONTENT_TYPE,
  RequestProblemCode,
  isProblem,
  problem,
  problemType,
  type Problem,
} from './problem.js';
