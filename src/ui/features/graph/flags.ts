/** The visual states a box can be in, as bits of one flag per box (renderer, visual state, test hook). */
export const FLAG = {
  excluded: 1,
  preview: 2,
  hovered: 4,
  start: 8,
  end: 16,
  picked: 32,
  selected: 64,
  match: 128,
} as const;

export type BoxState = keyof typeof FLAG;
