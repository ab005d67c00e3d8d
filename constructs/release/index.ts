/** Release: stages per environment and the promotion pipeline that moves one image digest and artifact through them. */
export * from './inference-stage';
export * from './promotion-pipeline';
