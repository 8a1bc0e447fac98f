/**
 * `@retry-safe/testing/jest`: helpers that declare Jest tests, kept out of the main entry so that what imports
 * `@retry-safe/testing` outside Jest (the scenario CLIs, the benchmarks) never loads `@jest/globals`.
 */
export { expectProblemAnswer, type ProblemAnswer } from './expect-problem.js';
export { itMapsToProblems, type ProblemCase } from './problem-cases.js';
