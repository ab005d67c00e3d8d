/**
 * aws-cdk-lib's built-in CloudFormation validation, off in tests unless a test file asks for it.
 *
 * aws-cdk-lib 2.276 validates every synthesized template with a WebAssembly engine (`CloudFormationValidatePlugin`)
 * that takes about 4 s of CPU to start in every test file (jest loads modules afresh per file) and more per synth:
 * measured on six construct suites, 78.6 s of CPU with it and 40.7 s without. It is a jest `setupFiles` entry, so it
 * runs before each test file. Its findings are warnings unless `@aws-cdk/core:validateAgainstDefaultRules` is set,
 * which the example app's cdk.json does: the suites that check templates against CloudFormation's schemas (the
 * example app with every construct it deploys, the constructs that set that flag, the cdk-nag report reader) call
 * {@link keepCloudFormationValidation} at their top, and `cdk synth` of the app always validates.
 */

/** `CDK_VALIDATION=false` turns the validation off for every App (aws-cdk-lib `AppProps.builtinCloudFormationValidation`). */
process.env.CDK_VALIDATION = 'false';

/** Turns aws-cdk-lib's CloudFormation validation back on for the test file that calls it (the next file starts without). */
export function keepCloudFormationValidation(): void {
  delete process.env.CDK_VALIDATION;
}
