import type { BuiltinCapability } from '../../catalog/builtin.ts';
import { assertNever } from '../../errors.ts';
import type { OutputItem } from '../../k8s/types.ts';
import type { RunContext } from '../context.ts';
import { editImage } from './edit-image.ts';
import { textToImage } from './text-to-image.ts';
import { textToVideo } from './text-to-video.ts';

/** Runs one job of `capability` with the builtin generator. */
export function runBuiltin(capability: BuiltinCapability, ctx: RunContext): Promise<OutputItem[]> {
  switch (capability) {
    case 'text-to-image':
      return textToImage(ctx);
    case 'edit-image':
      return editImage(ctx);
    case 'text-to-video':
      return textToVideo(ctx);
    default:
      return assertNever(capability);
  }
}
