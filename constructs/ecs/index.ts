/** EC2 hosting through Amazon ECS: the service behind a load balancer, and the example stack. */
export * from './ecs-service-props';
export * from './neuron-ecs-service';
export * from './ecs-inference-stack';
export * from './generative-ecs-service-props';
export * from './neuron-generative-ecs-service';
export * from './generative-ecs-inference-stack';
