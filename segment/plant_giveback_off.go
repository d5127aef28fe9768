//go:build !cosid_plant_giveback

package segment

// plantGiveBackAll plants a defect for integration/servicesim to find: a Close that
// gives back its whole last range, the ids it handed out of it included (build tag
// cosid_plant_giveback). Never set in a build of the package.
const plantGiveBackAll = false
