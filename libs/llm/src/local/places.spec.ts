import { detectPlacesLocally } from './places';

describe('detectPlacesLocally (detect_geo offline)', () => {
  it.each([
    ['Who lives near Paris?', ['Paris']],
    ['Who works near Berlin or Potsdam?', ['Berlin', 'Potsdam']],
    ['What happened in Springfield, Missouri in 2020?', ['Springfield, Missouri']],
    ['Which friends of Alice live near Munich?', ['Munich']],
    ['Where does Alice work?', []],
    ['', []],
  ])('%j → %j', (question, places) => {
    expect(detectPlacesLocally(question)).toEqual(places);
  });
});
