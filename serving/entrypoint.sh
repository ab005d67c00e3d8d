#!/bin/sh
# Container entrypoint: start as the Neuron DLC does, then run the model server.
set -e
# The DLC's own entrypoint runs this first (aws/deep-learning-containers, neuron-entrypoint.py): it starts
# neuron-monitor -> CloudWatch when NEURON_MONITOR_CW_REGION is set, and returns.
if [ -x /usr/local/bin/neuron-monitor.sh ]; then
  /usr/local/bin/neuron-monitor.sh
fi
# SageMaker starts the container as `<image> serve`; ECS/EC2 may pass nothing. Any other command runs as given.
case "${1:-serve}" in
  serve)
    # NeuronCore utilization beside the server's own metrics: neuron-monitor's JSON turned into EMF lines on the
    # same stdout (serving/neuron_monitor.py). Skipped where the image has no neuron-monitor, or with
    # MODEL_SERVER_NEURON_MONITOR=off.
    monitor="$(command -v neuron-monitor || true)"
    if [ -z "$monitor" ] && [ -x /opt/aws/neuron/bin/neuron-monitor ]; then
      monitor=/opt/aws/neuron/bin/neuron-monitor
    fi
    if [ -n "$monitor" ] && [ "${MODEL_SERVER_NEURON_MONITOR:-on}" != off ]; then
      ( "$monitor" 2>/dev/null | python3 -m serving.neuron_monitor ) &
    fi
    exec python3 -m serving ;;
  *) exec "$@" ;;
esac
