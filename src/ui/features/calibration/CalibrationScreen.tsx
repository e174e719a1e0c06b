/**
 * The steps after a model is open, in the order they depend on each other: calibration data,
 * preprocessing, quantization settings, calibrate, quantize. Loaded on first use (App lazy-loads it
 * once a model is open), so the empty page stays small.
 */
import { QuantSettingsCard } from '../run/QuantSettingsCard.tsx';
import { QuantizeCard } from '../run/QuantizeCard.tsx';
import { CalibrateCard } from './CalibrateCard.tsx';
import { DataCard } from './DataCard.tsx';
import { PreprocessCard } from './PreprocessCard.tsx';
import { FlowSection } from '../../components/FlowSection.tsx';
import { useDimsFromImages } from './useDimsFromImages.ts';
import './calibration.css';
import '../run/run.css';

export default function CalibrationScreen() {
  useDimsFromImages();
  return (
    <FlowSection
      titleId="flow-title"
      title="Calibrate and quantize"
      lead="Everything runs in this tab: images and the model never leave your machine."
      testId="calibration-screen"
    >
      <div className="flow__grid">
        <DataCard />
        <QuantSettingsCard />
      </div>
      <PreprocessCard />
      <CalibrateCard />
      <QuantizeCard />
    </FlowSection>
  );
}
