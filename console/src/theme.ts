import { Alert, createTheme, CSSVariablesResolver, darken, DEFAULT_THEME, luminance, Modal } from '@mantine/core';

/**
 * The console's look, held to WCAG AA contrast (record 0079: axe-core checks every screen in the
 * browser tests). Mantine's defaults fall short on a white page: white on its shade-6 colours
 * (blue 3.6:1, red 3.3:1), its dimmed grey (3.3:1), green, orange and yellow text at any shade
 * (green 9 is 4.3:1 on white), and a light button's text on its hover colour (blue 4.0:1).
 */
export const theme = createTheme({
  // Shade 8 for filled buttons and badges (white on blue 8 is 5.0:1), and their text black or
  // white by the colour's luminance: past 0.179 black reads better than white (orange 8, red 8).
  primaryShade: 8,
  autoContrast: true,
  luminanceThreshold: 0.179,
  components: {
    // Their close buttons are an icon alone: a name says what they do.
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } }),
    Alert: Alert.extend({ defaultProps: { closeButtonLabel: 'Dismiss' } }),
  },
});

/** Text at least this much brighter or darker than what is behind it (AA asks 4.5:1; kept above it, rounding apart). */
const TEXT_CONTRAST = 4.6;

const contrast = (a: string, b: string) => {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light + 0.05) / (dark + 0.05);
};

/** `colour`, darkened in small steps until it reads as text on `background`. */
export function readableOn(colour: string, background: string): string {
  let text = colour;
  for (let step = 1; contrast(text, background) < TEXT_CONTRAST && step <= 20; step++) text = darken(colour, step * 0.05);
  return text;
}

/**
 * For each colour of the palette: coloured text (`c="green"`) and outlines read on white, and a
 * light variant's text (alerts, light badges and buttons) reads on its hover colour (shade 2),
 * the darker of its two backgrounds. Secondary text (`c="dimmed"`, descriptions) is grey 7.
 */
export const cssVariablesResolver: CSSVariablesResolver = () => {
  const light: Record<string, string> = { '--mantine-color-dimmed': 'var(--mantine-color-gray-7)' };
  for (const [name, shades] of Object.entries(DEFAULT_THEME.colors)) {
    const text = readableOn(shades[8], '#ffffff');
    light[`--mantine-color-${name}-text`] = text;
    light[`--mantine-color-${name}-outline`] = text;
    light[`--mantine-color-${name}-light-color`] = readableOn(shades[9], shades[2]);
  }
  // A field's error, and its border, in the red that reads on white.
  light['--mantine-color-error'] = light['--mantine-color-red-text'];
  return { variables: {}, light, dark: {} };
};
