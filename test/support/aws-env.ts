/**
 * An environment where the AWS SDK's default credential chain finds nothing: no keys, no profile files, no
 * container, web-identity or instance-metadata credentials. Tests restore `process.env` themselves.
 */
export function withoutCredentials(): void {
  for (const name of Object.keys(process.env)) {
    if (/^AWS_(ACCESS_KEY_ID|SECRET_ACCESS_KEY|SESSION_TOKEN|PROFILE|DEFAULT_PROFILE|CONTAINER_|WEB_IDENTITY_|ROLE_)/.test(name)) {
      delete process.env[name];
    }
  }
  process.env.AWS_CONFIG_FILE = '/nonexistent/aws-config';
  process.env.AWS_SHARED_CREDENTIALS_FILE = '/nonexistent/aws-credentials';
  process.env.AWS_EC2_METADATA_DISABLED = 'true';
}

/** Puts `process.env` back as it was when the suite was defined, after each test. */
export function restoreEnvAfterEach(): void {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });
}

/**
 * Points the SDK's SageMaker runtime client at `url` (a local runtime) through `AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME`,
 * signing with the static key `accessKeyId`, as the standard SDK configuration would. Pair with `restoreEnvAfterEach`.
 */
export function sageMakerRuntimeFromEnv(url: string, accessKeyId: string): void {
  process.env.AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME = url;
  process.env.AWS_ACCESS_KEY_ID = accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = `${accessKeyId}-secret`;
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;
}
