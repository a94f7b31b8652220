/**
 * Whether the environment asks for OpenTelemetry traces: an OTLP endpoint is set
 * (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT), and neither
 * OTEL_SDK_DISABLED=true nor OTEL_TRACES_EXPORTER=none turns them off. Apart from
 * otel-traces.ts so that asking loads nothing of the SDK.
 */
export function tracesWanted(env: NodeJS.ProcessEnv): boolean {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT
  if (!endpoint || env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false
  return !(env.OTEL_TRACES_EXPORTER ?? '').split(',').some((e) => e.trim() === 'none')
}
