/** The capabilities the builtin reference generator (src/worker/builtin) can run. */
export const BUILTIN_CAPABILITIES = ['text-to-image', 'edit-image', 'text-to-video'] as const;
export type BuiltinCapability = (typeof BUILTIN_CAPABILITIES)[number];

export function isBuiltinCapability(value: string): value is BuiltinCapability {
  return (BUILTIN_CAPABILITIES as readonly string[]).includes(value);
}
