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
