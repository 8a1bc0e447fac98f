export {
  FaultActionType,
  FaultPhase,
  faultRuleSetSchema,
  type FaultRule,
  type FaultRuleInput,
  type FaultRuleSetInput,
} from './fault-rules.schema.js';
export {
  FAULT_POINT_METHOD,
  FaultInjector,
  type FaultInjectorOptions,
  type FaultPointOptions,
  type FaultRequestHeaders,
  type FaultRuleState,
  type FaultSnapshot,
} from './fault-injector.js';
export {
  FAULTS_PATH,
  createFaultAdminServer,
  handleFaultAdmin,
  type FaultAdminReply,
  type FaultAdminServer,
  type FaultAdminServerOptions,
} from './fault-admin.js';
export {
  createFaultMiddleware,
  type FaultMiddleware,
  type FaultMiddlewareOptions,
  type FaultMiddlewareRequest,
} from './fault-middleware.js';
export {
  FAULT_INJECTION_OPTIONS,
  FaultInjectionModule,
  type FaultInjectionModuleAsyncOptions,
  type FaultInjectionModuleOptions,
} from './fault-injection.module.js';
export {
  FaultInjectedError,
  FaultInjectionError,
  FaultInjectionErrorCode,
  FaultRulesInvalidError,
  type FaultRuleIssue,
} from './fault-injection.errors.js';
