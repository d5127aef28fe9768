//go:build !cosid_plant_join

package segment

// plantJoin plants a defect for integration/servicesim to find: a NextRange that
// joins the rest of the range in use to the new one from the start of the range in
// use, the ids taken from it included (build tag cosid_plant_join). Never set in a
// build of the package.
const plantJoin = false
